/// The Digital Asset Links API's answers, as Google documents them (v1 `assetlinks.check`,
/// `statements.list` and the common error body), decoded into types rather than read as
/// dictionaries: only the fields aasad reads are declared, and each is optional, as Google leaves
/// out what does not apply.
enum DigitalAssetLinksAnswers {
    /// `assetlinks.check`.
    struct Check: Decodable {
        var linked: Bool?
        var debugString: String?
    }

    /// `statements.list`.
    struct Statements: Decodable {
        var statements: [Statement]?

        struct Statement: Decodable {
            var target: Target?
        }

        struct Target: Decodable {
            var androidApp: AndroidApp?
        }

        struct AndroidApp: Decodable {
            var packageName: String?
            var certificate: Certificate?
        }

        struct Certificate: Decodable {
            var sha256Fingerprint: String?
        }
    }

    /// Google's error body on a refusal (`{"error": {"code": 500, "message": "…"}}`).
    struct Refusal: Decodable {
        var error: Body?

        struct Body: Decodable {
            var message: String?
        }
    }
}
