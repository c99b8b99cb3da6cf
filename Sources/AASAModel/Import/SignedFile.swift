/// The iOS 8 form of an AASA file: the JSON inside a CMS (PKCS #7) SignedData, in DER (or BER, as
/// some signers streamed it). `unwrap` takes the signed content out and names the signer from its
/// certificate, without checking the signature or trusting the certificate: iOS 9 and later read
/// the plain JSON, and an import only needs what the file says.
///
/// Only what that needs is parsed (ContentInfo → SignedData → encapContentInfo's eContent, and the
/// first certificate's subject and notAfter), by a small BER reader rather than a dependency.
public struct SignedFile: Sendable, Equatable {
    public var content: [UInt8]
    /// The first certificate's subject (`CN=…, O=…`), nil when the file carries none.
    public var signer: String?
    /// The first certificate's notAfter as written (`2016-07-01T12:00:00Z`).
    public var signerNotAfter: String?

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case notSignedData(String)

        public var description: String {
            switch self {
            case .notSignedData(let why): "not a CMS SignedData file: \(why)"
            }
        }
    }

    /// Whether the bytes look like DER rather than JSON: a SEQUENCE with a long-form length.
    public static func looksSigned(_ bytes: [UInt8]) -> Bool {
        bytes.count > 4 && bytes[0] == 0x30 && (bytes[1] == 0x80 || bytes[1] > 0x80)
    }

    static let signedDataOID: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]

    public static func unwrap(_ bytes: [UInt8]) throws(Failure) -> SignedFile {
        var reader = BER(bytes[...])
        let contentInfo = try reader.element(0x30, "ContentInfo")
        var info = BER(contentInfo.body)
        let type = try info.element(0x06, "contentType")
        guard Array(type.body) == signedDataOID else { throw .notSignedData("its content type is not signedData") }
        var explicit = BER(try info.element(0xA0, "content").body)
        var signedData = BER(try explicit.element(0x30, "SignedData").body)
        _ = try signedData.element(0x02, "version")
        _ = try signedData.element(0x31, "digestAlgorithms")
        var encapsulated = BER(try signedData.element(0x30, "encapContentInfo").body)
        _ = try encapsulated.element(0x06, "eContentType")
        var eContent = BER(try encapsulated.element(0xA0, "eContent").body)
        let octets = try eContent.next("eContent's OCTET STRING")
        guard octets.tag == 0x04 || octets.tag == 0x24 else { throw .notSignedData("eContent is not an OCTET STRING") }
        var file = SignedFile(content: try octets.tag == 0x04 ? Array(octets.body) : BER.concatenated(octets.body))
        if let certificates = try? signedData.next("certificates"), certificates.tag == 0xA0 {
            var set = BER(certificates.body)
            if let certificate = try? set.element(0x30, "Certificate") {
                (file.signer, file.signerNotAfter) = Self.subjectAndExpiry(certificate.body)
            }
        }
        return file
    }

    /// A certificate's subject and notAfter, nil where it cannot be read.
    static func subjectAndExpiry(_ certificate: ArraySlice<UInt8>) -> (String?, String?) {
        var outer = BER(certificate)
        guard let tbs = try? outer.element(0x30, "tbsCertificate") else { return (nil, nil) }
        var fields = BER(tbs.body)
        guard var first = try? fields.next("version or serial") else { return (nil, nil) }
        if first.tag == 0xA0, let serial = try? fields.next("serial") { first = serial }  // [0] version, then serial
        guard (try? fields.element(0x30, "signature")) != nil, (try? fields.element(0x30, "issuer")) != nil,
            let validity = try? fields.element(0x30, "validity"), let subject = try? fields.element(0x30, "subject")
        else { return (nil, nil) }
        var times = BER(validity.body)
        _ = try? times.next("notBefore")
        let notAfter = (try? times.next("notAfter")).map { time(String(decoding: $0.body, as: UTF8.self), $0.tag) }
        return (name(subject.body), notAfter)
    }

    /// `CN=…, O=…` for the attributes people recognise, in the certificate's order.
    static func name(_ body: ArraySlice<UInt8>) -> String? {
        let labels: [[UInt8]: String] = [
            [0x55, 0x04, 0x03]: "CN", [0x55, 0x04, 0x0A]: "O", [0x55, 0x04, 0x0B]: "OU", [0x55, 0x04, 0x06]: "C",
            [0x55, 0x04, 0x07]: "L", [0x55, 0x04, 0x08]: "ST",
        ]
        var parts: [String] = []
        var sets = BER(body)
        while let set = try? sets.next("RDN"), set.tag == 0x31 {
            var attributes = BER(set.body)
            while let attribute = try? attributes.element(0x30, "attribute") {
                var pair = BER(attribute.body)
                guard let oid = try? pair.element(0x06, "type"), let value = try? pair.next("value"),
                    let label = labels[Array(oid.body)]
                else { continue }
                parts.append("\(label)=\(String(decoding: value.body, as: UTF8.self))")
            }
        }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    /// UTCTime (`YYMMDDHHMMSSZ`) or GeneralizedTime (`YYYYMMDDHHMMSSZ`) as ISO 8601.
    static func time(_ text: String, _ tag: UInt8) -> String {
        var digits = Array(text.prefix { $0 != "Z" })
        if tag == 0x17, digits.count >= 12 {
            let year = Int(String(digits[0..<2])) ?? 0
            digits = Array(year >= 50 ? "19" : "20") + digits
        }
        guard digits.count >= 14 else { return text }
        let s = String(digits)
        func part(_ from: Int, _ length: Int) -> Substring {
            s.dropFirst(from).prefix(length)
        }
        return "\(part(0, 4))-\(part(4, 2))-\(part(6, 2))T\(part(8, 2)):\(part(10, 2)):\(part(12, 2))Z"
    }
}

/// A reader of BER elements: tag, length (definite, or indefinite up to its end-of-contents) and body.
struct BER {
    struct Element {
        var tag: UInt8
        var body: ArraySlice<UInt8>
    }

    private var bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    mutating func element(_ tag: UInt8, _ what: String) throws(SignedFile.Failure) -> Element {
        let element = try next(what)
        guard element.tag == tag else { throw .notSignedData("\(what) is not where it belongs") }
        return element
    }

    mutating func next(_ what: String) throws(SignedFile.Failure) -> Element {
        guard bytes.count >= 2, let tag = bytes.first else { throw .notSignedData("\(what) is missing") }
        var index = bytes.index(after: bytes.startIndex)
        let first = bytes[index]
        index = bytes.index(after: index)
        if first == 0x80 {
            // Indefinite: nested elements until the end-of-contents octets 00 00.
            var inner = BER(bytes[index...])
            var end = index
            while true {
                guard inner.bytes.count >= 2 else { throw .notSignedData("\(what) never ends") }
                if inner.bytes.prefix(2).elementsEqual([0, 0]) {
                    end = inner.bytes.startIndex
                    break
                }
                _ = try inner.next(what)
            }
            let body = bytes[index..<end]
            bytes = bytes[(end + 2)...]
            return Element(tag: tag, body: body)
        }
        var length = Int(first)
        if first & 0x80 != 0 {
            let count = Int(first & 0x7F)
            guard count <= 4, bytes.distance(from: index, to: bytes.endIndex) >= count else {
                throw .notSignedData("\(what) has a length it cannot have")
            }
            length = 0
            for _ in 0..<count {
                length = length << 8 | Int(bytes[index])
                index = bytes.index(after: index)
            }
        }
        guard bytes.distance(from: index, to: bytes.endIndex) >= length else {
            throw .notSignedData("\(what) is cut short")
        }
        let end = index + length
        let body = bytes[index..<end]
        bytes = bytes[end...]
        return Element(tag: tag, body: body)
    }

    /// A constructed OCTET STRING's pieces, joined.
    static func concatenated(_ body: ArraySlice<UInt8>) throws(SignedFile.Failure) -> [UInt8] {
        var reader = BER(body)
        var out: [UInt8] = []
        while !reader.bytes.isEmpty {
            let piece = try reader.next("a piece of eContent")
            out += piece.tag == 0x24 ? try concatenated(piece.body) : Array(piece.body)
        }
        return out
    }
}
