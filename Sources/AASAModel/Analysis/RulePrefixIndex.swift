/// Rules filed by the text every URL path they match begins with (case-folded), in a trie.
///
/// Two rules can only share a URL when one's prefix begins the other's: `/shop/a/*` and
/// `/shop/b/*` never meet, `/shop/*` and `/shop/a/*` may. The analyser asks the automata only
/// about such pairs, so a domain of many teams' rules under distinct paths costs about the
/// number of rules rather than its square.
struct RulePrefixIndex {
    private var children: [[UInt32: Int]] = [[:]]
    /// Rule numbers filed at each node, ascending.
    private var members: [[Int]] = [[]]
    private let keys: [[UInt32]]

    /// - Parameter keys: each rule's prefix (empty for a rule that may match any path).
    init(keys: [[UInt32]]) {
        self.keys = keys
        for (rule, key) in keys.enumerated() {
            var node = 0
            for scalar in key {
                if let next = children[node][scalar] {
                    node = next
                    continue
                }
                children.append([:])
                members.append([])
                children[node][scalar] = children.count - 1
                node = children.count - 1
            }
            members[node].append(rule)
        }
    }

    /// Calls `body(other, samePrefix)` for every rule whose prefix begins `rule`'s prefix (equal
    /// prefixes included, `rule` itself left out), shortest prefixes first; stops when `body`
    /// returns false. Each pair of rules that may meet is reached once from its longer-prefixed
    /// side, and from both sides when the prefixes are equal.
    func ancestors(of rule: Int, _ body: (_ other: Int, _ samePrefix: Bool) -> Bool) {
        var node = 0
        for scalar in keys[rule] {
            for other in members[node] where !body(other, false) { return }
            guard let next = children[node][scalar] else { return }
            node = next
        }
        for other in members[node] where other != rule && !body(other, true) { return }
    }
}

extension Automaton {
    /// The scalars (case-folded) that every string this automaton accepts begins with, read along
    /// the single literal path from the start; at most `limit` of them. Shorter is always safe.
    func commonPrefix(limit: Int = 128) -> [UInt32] {
        var states = closure([start])
        var prefix: [UInt32] = []
        while prefix.count < limit, !states.contains(where: { accepting[$0] }) {
            var label: UInt32?
            var next: [Int] = []
            for state in states {
                for edge in edges[state] {
                    guard case .scalar(let c) = edge.label else { return prefix }
                    let folded = CaseFolding.fold(c)
                    if let label, label != folded { return prefix }
                    label = folded
                    next.append(edge.target)
                }
            }
            guard let label else { return prefix }
            prefix.append(label)
            states = closure(next)
        }
        return prefix
    }
}

extension Automaton {
    /// A shortest string this automaton accepts (nil when it accepts none): a member to test other
    /// rules against before asking the costly inclusion question.
    func shortestMember() -> [UInt32]? {
        var parent: [Int: (Int, UInt32)] = [:]
        var seen = Set(closure([start]))
        var queue = Array(seen)
        var head = 0
        while head < queue.count {
            let state = queue[head]
            head += 1
            if accepting[state] {
                var out: [UInt32] = []
                var s = state
                while let (previous, scalar) = parent[s] {
                    out.append(scalar)
                    s = previous
                }
                return out.reversed()
            }
            for edge in edges[state] {
                let scalar: UInt32
                switch edge.label {
                case .scalar(let c): scalar = c
                case .any: scalar = 0x78  // "x"
                case .characterClass(let cls):
                    guard let first = cls.members.first else { continue }
                    scalar = first
                }
                for next in closure([edge.target]) where seen.insert(next).inserted {
                    parent[next] = (state, scalar)
                    queue.append(next)
                }
            }
        }
        return nil
    }

    /// Whether the automaton accepts `scalars` (folded first when it is case-insensitive).
    func accepts(_ scalars: [UInt32]) -> Bool {
        var states = closure([start])
        for x in scalars {
            var next: [Int] = []
            for state in states {
                for edge in edges[state] where label(edge.label, accepts: x) { next.append(edge.target) }
            }
            if next.isEmpty { return false }
            states = closure(next)
        }
        return states.contains { accepting[$0] }
    }
}
