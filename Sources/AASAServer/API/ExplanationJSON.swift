import AASAAPI
import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import Foundation

/// AASAModel's `Explanation` as the API answers it: the model's own JSON (one mapping for the API
/// and `aasactl match --explain --file`), with the server's hints first and each rule named by
/// team and rule ID when the file was rendered from stored rules.
enum ExplanationJSON {
    static func explanation(_ e: Explanation, document: DomainDocument?, serverHints: [Explanation.Hint]) throws
        -> Components.Schemas.Explanation
    {
        var explanation = e
        explanation.hints = serverHints + e.hints
        let json = explanation.jsonValue { location in
            (DomainDocument.ruleReference(location, in: document).objectValue ?? [:]).filter {
                $0.key == "team" || $0.key == "ruleID"
            }
        }
        return try Components.Schemas.Explanation(from: JSONValueDecoder(value: json))
    }
}
