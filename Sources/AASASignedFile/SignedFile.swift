import Foundation
import SwiftASN1
import X509

/// The iOS 8 form of an AASA file: the JSON inside a CMS (PKCS #7) SignedData, in DER (or BER, as
/// some signers streamed it). `unwrap` takes the signed content out and names the signer from its
/// certificate, without checking the signature or trusting the certificate: iOS 9 and later read
/// the plain JSON, and an import only needs what the file says.
///
/// The file comes from the origin of a domain being adopted, the party we do not control. It is
/// read by swift-asn1's BER parser, which bounds the nesting depth (issue 41: the hand-written
/// reader it replaces recursed once per nested indefinite-length element, and `30 80` five
/// thousand times overflowed the stack and killed aasad), and the certificate by
/// swift-certificates. `scripts/fuzz` runs this reader under libFuzzer (`Fuzz/SignedFile`).
public struct SignedFile: Sendable, Equatable {
    public var content: [UInt8]
    /// The first certificate's subject (`CN=…, O=…`), nil when the file carries none.
    public var signer: String?
    /// The first certificate's notAfter (`2016-07-01T12:00:00Z`).
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

    static let signedDataOID: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 2]
    static let contextZero = ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)

    /// ContentInfo → SignedData → encapContentInfo's eContent, and the first certificate (RFC 5652).
    public static func unwrap(_ bytes: [UInt8]) throws(Failure) -> SignedFile {
        do {
            let root = try BER.parse(bytes)
            return try BER.sequence(root, identifier: .sequence) { nodes in
                guard try ASN1ObjectIdentifier(berEncoded: &nodes) == signedDataOID else {
                    throw Failure.notSignedData("its content type is not signedData")
                }
                return try BER.explicitlyTagged(&nodes, tagNumber: 0, tagClass: .contextSpecific) { node in
                    try signedData(node)
                }
            }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw .notSignedData(Self.reason(error))
        }
    }

    /// SignedData ::= SEQUENCE { version, digestAlgorithms SET, encapContentInfo,
    /// certificates [0] IMPLICIT OPTIONAL, crls [1] IMPLICIT OPTIONAL, signerInfos SET }
    private static func signedData(_ node: ASN1Node) throws -> SignedFile {
        try BER.sequence(node, identifier: .sequence) { nodes in
            _ = try Int(berEncoded: &nodes)
            guard let algorithms = nodes.next(), algorithms.identifier == .set else {
                throw Failure.notSignedData("digestAlgorithms is not where it belongs")
            }
            guard let encapsulated = nodes.next() else { throw Failure.notSignedData("encapContentInfo is missing") }
            var file = SignedFile(content: try eContent(encapsulated))
            // The rest is optional here: the first certificate names the signer; CRLs and the
            // signer infos are not read (nothing is verified).
            while let next = nodes.next() {
                guard next.identifier == contextZero, case .constructed(let certificates) = next.content,
                    let first = certificates.first(where: { _ in true })
                else { continue }
                if let certificate = try? Certificate(derEncoded: Array(first.encodedBytes)) {
                    file.signer = name(certificate.subject)
                    file.signerNotAfter = iso8601(certificate.notValidAfter)
                }
            }
            return file
        }
    }

    /// EncapsulatedContentInfo ::= SEQUENCE { eContentType, eContent [0] EXPLICIT OCTET STRING },
    /// the OCTET STRING possibly constructed (BER), which swift-asn1 joins.
    private static func eContent(_ node: ASN1Node) throws -> [UInt8] {
        try BER.sequence(node, identifier: .sequence) { nodes in
            _ = try ASN1ObjectIdentifier(berEncoded: &nodes)
            guard nodes.peekIdentifier == contextZero else { throw Failure.notSignedData("it carries no eContent") }
            return try BER.explicitlyTagged(&nodes, tagNumber: 0, tagClass: .contextSpecific) { octets in
                Array(try ASN1OctetString(berEncoded: octets).bytes)
            }
        }
    }

    /// `CN=…, O=…` for the attributes people recognise, in the certificate's order.
    static func name(_ subject: DistinguishedName) -> String? {
        let labels: [ASN1ObjectIdentifier: String] = [
            .RDNAttributeType.commonName: "CN", .RDNAttributeType.organizationName: "O",
            .RDNAttributeType.organizationalUnitName: "OU", .RDNAttributeType.countryName: "C",
            .RDNAttributeType.localityName: "L", .RDNAttributeType.stateOrProvinceName: "ST",
        ]
        var parts: [String] = []
        for rdn in subject {
            for attribute in rdn {
                if let label = labels[attribute.type] { parts.append("\(label)=\(attribute.value)") }
            }
        }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    static func iso8601(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    /// What swift-asn1 or swift-certificates said, in a sentence for an import's answer.
    static func reason(_ error: any Error) -> String {
        if let asn1 = error as? ASN1Error {
            switch asn1.code {
            case .truncatedASN1Field: return "it is cut short"
            case .unexpectedFieldType: return "an element is not where it belongs"
            case .invalidASN1Object:
                return "it is not well-formed BER (nested too deep, a bad length, or trailing data)"
            default: return "it is not well-formed BER"
            }
        }
        return "it cannot be read"
    }
}

extension ASN1NodeCollection.Iterator {
    /// The identifier of the next node, without taking it.
    fileprivate var peekIdentifier: ASN1Identifier? {
        var copy = self
        return copy.next()?.identifier
    }
}
