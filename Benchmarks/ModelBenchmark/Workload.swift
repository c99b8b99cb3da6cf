// The generated workload the model benchmarks share: a document of N rules in the shape real
// multi-team files have, and URLs that hit, miss and get excluded.
import AASAModel
import Foundation

func makeDocument(rules: Int) -> String {
    var entries: [String] = []
    var count = 0
    var team = 0
    while count < rules {
        var components: [String] = []
        components.append(#"{"/":"/t\#(team)/private/*","exclude":true}"#)
        for j in 0..<8 {
            switch j % 4 {
            case 0: components.append(#"{"/":"/t\#(team)/section\#(j)/*"}"#)
            case 1: components.append(#"{"/":"/t\#(team)/item/????/s\#(j)"}"#)
            case 2: components.append(#"{"/":"/t\#(team)/search\#(j)","?":{"q":"?*"}}"#)
            default: components.append(#"{"/":"/t\#(team)/docs\#(j)/*.pdf"}"#)
            }
        }
        components.append(#"{"/":"/shared/t\#(team)/*"}"#)
        count += components.count
        entries.append(
            #"{"appIDs":["ABCDE12345.com.example.team\#(team)"],"components":[\#(components.joined(separator: ","))]}"#)
        team += 1
    }
    return #"{"applinks":{"details":[\#(entries.joined(separator: ","))]}}"#
}

func makeURLs(count: Int, teams: Int) -> [String] {
    var rng = SystemRandomNumberGenerator()
    let shapes: [(Int) -> String] = [
        { "/t\($0)/section0/page/\(Int.random(in: 0..<1000, using: &rng))" },
        { "/t\($0)/item/1234/s1" },
        { "/t\($0)/search2?q=shoes&page=2" },
        { "/t\($0)/docs3/manual.pdf" },
        { "/t\($0)/private/x" },
        { "/shared/t\($0)/x/y" },
        { "/nowhere/\($0)" },
        { "/t\($0)/section0" },
    ]
    return (0..<count).map { i in
        "https://example.com" + shapes[i % shapes.count](Int.random(in: 0..<teams, using: &rng))
    }
}
