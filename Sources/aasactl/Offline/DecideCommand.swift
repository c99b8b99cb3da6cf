import AASAModel
import ArgumentParser

/// A filter for conformance suites: one JSON case per input line, one decision per output line.
struct Decide: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Answer per-app matching cases read as JSON lines (conformance suites).",
        discussion: """
            Reads one object per line on standard input and writes one line per input:
              in:  {"id": …, "aasa": {…}, "domain": "example.com",
                    "appId": "ABCDE12345.com.example.app", "url": "https://example.com/x"}
              out: {"id": …, "decision": "match" | "exclude" | "no_match"}
            A case that cannot be read still answers for its id ("no_match", with "error"), and the \
            reason goes to standard error; the run never stops early.
            """
    )

    func run() throws {
        var lineNumber = 0
        while let line = readLine(strippingNewline: true) {
            lineNumber += 1
            if line.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) { continue }
            CLIOutput.json(answer(line, lineNumber: lineNumber))
        }
    }

    func answer(_ line: String, lineNumber: Int) -> JSONValue {
        let object: JSONObject
        do {
            guard case .object(let o) = try JSONParser.parse(line).value else {
                return failure(id: .null, "line \(lineNumber): expected a JSON object")
            }
            object = o
        } catch {
            return failure(id: .null, "line \(lineNumber): not JSON (\(error))")
        }
        let id = object["id"] ?? .null
        guard let aasa = object["aasa"] else { return failure(id: id, "line \(lineNumber): \"aasa\" is missing") }
        guard let appID = object["appId"]?.stringValue ?? object["appID"]?.stringValue else {
            return failure(id: id, "line \(lineNumber): \"appId\" is missing or not a string")
        }
        guard let url = object["url"]?.stringValue else {
            return failure(id: id, "line \(lineNumber): \"url\" is missing or not a string")
        }
        guard let document = AASAParser.read(aasa).document else {
            return failure(id: id, "line \(lineNumber): \"aasa\" is not a JSON object, so it opens nothing")
        }
        let decision = AASAMatcher(document).decide(appID: appID, url: url, domain: object["domain"]?.stringValue)
        return .object(["id": id, "decision": .string(decision.decision.rawValue)])
    }

    func failure(id: JSONValue, _ reason: String) -> JSONValue {
        CLIOutput.error("aasactl decide: \(reason)")
        return .object(["id": id, "decision": .string(Decision.noMatch.rawValue), "error": .string(reason)])
    }
}
