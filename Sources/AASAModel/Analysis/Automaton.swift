/// A nondeterministic automaton over Unicode scalars for reasoning about patterns as languages:
/// does one pattern accept everything another accepts (inclusion), and is there a string both
/// accept (intersection, with a shortest witness). Matching never uses this; analysis does.
struct Automaton: Sendable {
    enum Label: Sendable, Hashable {
        case scalar(UInt32)
        case any
        case characterClass(ASCIIClass)
    }

    struct Edge: Sendable {
        var label: Label
        var target: Int
    }

    var edges: [[Edge]] = []
    var epsilons: [[Int]] = []
    var accepting: [Bool] = []
    var start = 0
    /// Labels hold folded scalars and the subject is folded before it meets them.
    var foldsCase = false

    mutating func addState() -> Int {
        edges.append([])
        epsilons.append([])
        accepting.append(false)
        return edges.count - 1
    }

    /// The automaton of everything (`*`).
    static func universal(foldsCase: Bool = false) -> Automaton {
        var a = Automaton()
        a.foldsCase = foldsCase
        let s = a.addState()
        a.edges[s].append(Edge(label: .any, target: s))
        a.accepting[s] = true
        return a
    }

    /// The automaton of one or more alternative token sequences (a path pattern and its `/*`-less
    /// variant, for instance).
    static func build(_ alternatives: [[PatternToken]], variables: VariableTable, caseSensitive: Bool) -> Automaton {
        var a = Automaton()
        a.foldsCase = !caseSensitive
        a.start = a.addState()
        let accept = a.addState()
        a.accepting[accept] = true
        for tokens in alternatives {
            let end = a.append(tokens, from: a.start, variables: variables, depth: 0)
            a.epsilons[end].append(accept)
        }
        return a
    }

    /// Appends `tokens` after state `from`; returns the state reached at their end.
    private mutating func append(_ tokens: [PatternToken], from: Int, variables: VariableTable, depth: Int) -> Int {
        var current = from
        var afterRun = false
        for token in tokens {
            // `**…*` means what `*` means; a chain of loop states would only multiply the state
            // pairs an intersection visits (a fuzzer found 150 stars taking seconds to analyse).
            if case .anyRun = token, afterRun { continue }
            if case .anyRun = token { afterRun = true } else { afterRun = false }
            switch token {
            case .literal(let c):
                let next = addState()
                edges[current].append(Edge(label: .scalar(fold(c.value)), target: next))
                current = next
            case .anyOne:
                let next = addState()
                edges[current].append(Edge(label: .any, target: next))
                current = next
            case .anyRun:
                let loop = addState()
                epsilons[current].append(loop)
                edges[loop].append(Edge(label: .any, target: loop))
                current = loop
            case .variable(let name):
                let next = addState()
                switch variables.meaning(of: name) {
                case .characterClass(let cls):
                    edges[current].append(Edge(label: .characterClass(foldsCase ? cls.folded : cls), target: next))
                case .values(let values) where depth == 0:
                    for value in values {
                        let valueTokens = GlobCompiler(variables: variables, caseSensitive: !foldsCase).valueTokens(
                            value)
                        let end = append(valueTokens, from: current, variables: variables, depth: 1)
                        epsilons[end].append(next)
                    }
                case .values, .undefined:
                    break  // no edge: nothing passes
                }
                current = next
            }
        }
        return current
    }

    private func fold(_ c: UInt32) -> UInt32 { foldsCase ? CaseFolding.fold(c) : c }

    /// Whether this automaton's `label` accepts subject scalar `x` (folding it first when the
    /// automaton is case-insensitive).
    func label(_ label: Label, accepts x: UInt32) -> Bool {
        let y = foldsCase ? CaseFolding.fold(x) : x
        switch label {
        case .scalar(let c): return c == y
        case .any: return true
        case .characterClass(let cls): return cls.contains(y)
        }
    }

    func closure(_ states: [Int]) -> [Int] {
        var seen = Set(states)
        var stack = states
        while let s = stack.popLast() {
            for t in epsilons[s] where seen.insert(t).inserted { stack.append(t) }
        }
        return seen.sorted()
    }

    /// Scalars that tell every label of both automata apart: each literal in its cases, each class
    /// member in both cases, and one private-use scalar standing for "anything else".
    static func representatives(_ automata: [Automaton]) -> [UInt32] {
        var set = Set<UInt32>([0xE000])
        func addCases(_ c: UInt32) {
            set.insert(c)
            set.insert(CaseFolding.fold(c))
            if let s = Unicode.Scalar(c) {
                let upper = s.properties.uppercaseMapping.unicodeScalars
                if upper.count == 1, let u = upper.first { set.insert(u.value) }
            }
        }
        for a in automata {
            for list in a.edges {
                for edge in list {
                    switch edge.label {
                    case .scalar(let c): addCases(c)
                    case .characterClass(let cls): cls.members.forEach(addCases)
                    case .any: break
                    }
                }
            }
        }
        return set.sorted()
    }
}

/// The work one document's rule analysis may do, shared by all its language questions. Each
/// question is bounded on its own (`LanguageOps.workLimit` product states), but a document can
/// ask thousands of them, and shapes like `*a??????????????????` make each one hit its bound: the
/// shared budget keeps a hostile or unlucky file from costing seconds of CPU per lint or write.
/// Past it every question answers "unknown", and the analysis says it is incomplete.
final class AnalysisBudget {
    private(set) var remaining: Int
    private(set) var exhausted = false
    private let shouldStop: (@Sendable () -> Bool)?
    private var untilNextAsk = 0

    init(steps: Int, shouldStop: (@Sendable () -> Bool)? = nil) {
        remaining = steps
        self.shouldStop = shouldStop
    }

    /// Takes `steps`; false (and exhausted from then on) when the budget is spent, or when the
    /// caller said stop (asked every 10,000 steps or so: a few milliseconds of work).
    func spend(_ steps: Int = 1) -> Bool {
        remaining -= steps
        if remaining < 0 { exhausted = true }
        if let shouldStop, !exhausted {
            untilNextAsk -= steps
            if untilNextAsk <= 0 {
                untilNextAsk = 10_000
                if shouldStop() { exhausted = true }
            }
        }
        return !exhausted
    }
}

/// Language questions on automata, with a work bound: past it the answer is "unknown" (nil), and
/// callers then report nothing rather than guess.
enum LanguageOps {
    static let workLimit = 50_000

    /// A shortest string accepted by both, nil when there is none (or past the work bound).
    static func intersectionWitness(_ a: Automaton, _ b: Automaton, budget: AnalysisBudget) -> [UInt32]?? {
        struct Node: Hashable { let p: Int, q: Int }
        let reps = Automaton.representatives([a, b])
        var parent: [Node: (Node, UInt32)] = [:]
        var queue: [Node] = []
        var seen = Set<Node>()
        for p in a.closure([a.start]) {
            for q in b.closure([b.start]) {
                let n = Node(p: p, q: q)
                if seen.insert(n).inserted { queue.append(n) }
            }
        }
        var head = 0
        while head < queue.count {
            if seen.count > workLimit { return nil }
            let node = queue[head]
            head += 1
            guard budget.spend(1 + a.edges[node.p].count * b.edges[node.q].count) else { return nil }
            if a.accepting[node.p] && b.accepting[node.q] {
                return .some(path(to: node, parent: parent))
            }
            for ea in a.edges[node.p] {
                for eb in b.edges[node.q] {
                    guard let c = commonScalar(ea.label, a, eb.label, b, reps) else { continue }
                    for p in a.closure([ea.target]) {
                        for q in b.closure([eb.target]) {
                            let n = Node(p: p, q: q)
                            if seen.insert(n).inserted {
                                parent[n] = (node, c)
                                queue.append(n)
                            }
                        }
                    }
                }
            }
        }
        return .some(nil)
    }

    /// The scalars a breadth-first search took to reach `node`, read back along `parent`.
    static func path<Node: Hashable>(to node: Node, parent: [Node: (Node, UInt32)]) -> [UInt32] {
        var witness: [UInt32] = []
        var cursor = node
        while let (previous, c) = parent[cursor] {
            witness.append(c)
            cursor = previous
        }
        return witness.reversed()
    }

    /// True when every string `a` accepts, `b` accepts too; nil when unknown (work bound).
    static func isSubset(_ a: Automaton, of b: Automaton, budget: AnalysisBudget) -> Bool? {
        struct Node: Hashable { let p: Int, set: [Int] }
        let reps = Automaton.representatives([a, b])
        var seen = Set<Node>()
        var queue: [Node] = []
        let startB = b.closure([b.start])
        for p in a.closure([a.start]) {
            let n = Node(p: p, set: startB)
            if seen.insert(n).inserted { queue.append(n) }
        }
        var head = 0
        while head < queue.count {
            if seen.count > workLimit { return nil }
            let node = queue[head]
            head += 1
            guard budget.spend(1 + node.set.count) else { return nil }
            if a.accepting[node.p] && !node.set.contains(where: { b.accepting[$0] }) { return false }
            for ea in a.edges[node.p] {
                for c in reps where a.label(ea.label, accepts: c) {
                    var next: [Int] = []
                    var work = 1
                    for s in node.set {
                        work += b.edges[s].count
                        for eb in b.edges[s] where b.label(eb.label, accepts: c) { next.append(eb.target) }
                    }
                    let nextSet = b.closure(next)
                    // The step's real cost: every edge looked at, and the new set hashed and stored.
                    guard budget.spend(work + 4 * nextSet.count) else { return nil }
                    for p in a.closure([ea.target]) {
                        let n = Node(p: p, set: nextSet)
                        if seen.insert(n).inserted { queue.append(n) }
                    }
                }
            }
        }
        return true
    }

    /// A scalar both labels accept, preferring readable ones for witnesses.
    static func commonScalar(
        _ la: Automaton.Label, _ a: Automaton, _ lb: Automaton.Label, _ b: Automaton, _ reps: [UInt32]
    ) -> UInt32? {
        var preferred: [UInt32] = []
        if case .scalar(let c) = la { preferred.append(c) }
        if case .scalar(let c) = lb { preferred.append(c) }
        preferred.append(UInt32(UInt8(ascii: "x")))
        for c in preferred + reps where a.label(la, accepts: c) && b.label(lb, accepts: c) { return c }
        return nil
    }
}

extension LanguageOps {
    /// A shortest string every automaton of `required` accepts and none of `excluded` does; nil
    /// inside when there is none, nil outside past the work bound. All automata are walked as
    /// sets of states (the subset construction, built only as far as the search goes), so
    /// "accepted by none of" is exact.
    static func witness(in required: [Automaton], outside excluded: [Automaton], budget: AnalysisBudget) -> [UInt32]?? {
        let all = required + excluded
        guard !required.isEmpty else { return nil }
        // Readable witnesses: lower-case letters and digits first, then the rest.
        let reps = Automaton.representatives(all).sorted { a, b in
            func rank(_ c: UInt32) -> Int {
                (0x61...0x7A).contains(c) || (0x30...0x39).contains(c) ? 0 : c < 0x80 ? 1 : 2
            }
            return (rank(a), a) < (rank(b), b)
        }
        typealias Node = [[Int]]
        func accepting(_ node: Node) -> Bool {
            for (k, states) in node.enumerated() {
                let accepts = states.contains { all[k].accepting[$0] }
                if k < required.count ? !accepts : accepts { return false }
            }
            return true
        }
        let start: Node = all.map { $0.closure([$0.start]) }
        var parent: [Node: (Node, UInt32)] = [:]
        var seen: Set<Node> = [start]
        var queue = [start]
        var head = 0
        while head < queue.count {
            if seen.count > workLimit { return nil }
            let node = queue[head]
            head += 1
            if accepting(node) {
                return .some(path(to: node, parent: parent))
            }
            characters: for c in reps {
                var next: Node = []
                next.reserveCapacity(all.count)
                for (k, automaton) in all.enumerated() {
                    var targets: [Int] = []
                    for s in node[k] {
                        for e in automaton.edges[s] where automaton.label(e.label, accepts: c) {
                            targets.append(e.target)
                        }
                    }
                    guard budget.spend(1 + node[k].count) else { return nil }
                    let set = automaton.closure(targets)
                    // A required automaton with no state left can never accept: a dead branch.
                    if k < required.count && set.isEmpty { continue characters }
                    next.append(set)
                }
                if seen.insert(next).inserted {
                    parent[next] = (node, c)
                    queue.append(next)
                }
            }
        }
        return .some(nil)
    }
}
