/// What a `$(name)` stands for when a pattern is compiled.
enum VariableMeaning: Sendable, Hashable {
    /// One character of a class (`$(digit)`, …).
    case characterClass(ASCIIClass)
    /// Any one of these strings, which may hold `*` and `?` but no other variable.
    case values([String])
    /// Not defined: the reference matches nothing.
    case undefined
}

/// Looks variables up: Apple's predefined ones first (a custom variable of the same name is refused
/// by the validator), then the document's `substitutionVariables`.
struct VariableTable: Sendable {
    private var custom: [String: [String]] = [:]

    init(_ variables: [SubstitutionVariable]?) {
        for variable in variables ?? [] { custom[variable.name] = variable.values }
    }

    func meaning(of name: String) -> VariableMeaning {
        if let predefined = PredefinedVariable.named(name) {
            if let cls = predefined.characterClass { return .characterClass(cls) }
            if let values = predefined.values { return .values(values) }
        }
        if let values = custom[name] { return .values(values) }
        return .undefined
    }
}

/// Compiles pattern tokens into a `Glob`, folding case at compile time for case-insensitive rules
/// (the subject is folded once per URL, so matching itself never folds).
struct GlobCompiler {
    let variables: VariableTable
    let caseSensitive: Bool

    func compile(_ tokens: [PatternToken]) -> Glob {
        var classes: [ASCIIClass] = []
        var hasAlternation = false
        for token in tokens {
            if case .variable(let name) = token {
                switch variables.meaning(of: name) {
                case .undefined: return Glob(program: .never, classes: [])
                case .values(let values) where values.isEmpty: return Glob(program: .never, classes: [])
                case .values: hasAlternation = true
                case .characterClass: break
                }
            }
        }
        if hasAlternation {
            var builder = NFABuilder(compiler: self)
            builder.emit(tokens, classes: &classes)
            builder.instructions.append(.accept)
            return Glob(program: .nfa(NFA(instructions: builder.instructions)), classes: classes)
        }
        var program: [UInt32] = []
        program.reserveCapacity(tokens.count)
        for token in tokens {
            switch token {
            case .literal(let c): program.append(fold(c.value))
            case .anyOne: program.append(Glob.anyOne)
            case .anyRun:
                // `**` is `*`: collapsing keeps the greedy matcher's work down on hostile patterns.
                if program.last != Glob.anyRun { program.append(Glob.anyRun) }
            case .variable(let name):
                guard case .characterClass(let cls) = variables.meaning(of: name) else { continue }
                program.append(classToken(cls, &classes))
            }
        }
        if program.allSatisfy({ $0 < 0x110000 }) {
            return Glob(program: .literal(program), classes: [])
        }
        return Glob(program: .simple(program), classes: classes)
    }

    func fold(_ c: UInt32) -> UInt32 { caseSensitive ? c : CaseFolding.fold(c) }

    func classToken(_ cls: ASCIIClass, _ classes: inout [ASCIIClass]) -> UInt32 {
        let effective = caseSensitive ? cls : cls.folded
        if let i = classes.firstIndex(of: effective) { return Glob.classBase + UInt32(i) }
        classes.append(effective)
        return Glob.classBase + UInt32(classes.count - 1)
    }

    /// Tokens of a variable's value: wildcards count, but a `$(…)` inside a value is literal text.
    func valueTokens(_ value: String) -> [PatternToken] {
        value.unicodeScalars.map {
            switch $0 {
            case "*": .anyRun
            case "?": .anyOne
            default: .literal($0)
            }
        }
    }
}

private struct NFABuilder {
    let compiler: GlobCompiler
    var instructions: [NFA.Instruction] = []

    final class TrieNode {
        var children: [(UInt32, TrieNode)] = []
        var terminal = false

        func child(_ c: UInt32) -> TrieNode {
            if let existing = children.first(where: { $0.0 == c }) { return existing.1 }
            let node = TrieNode()
            children.append((c, node))
            return node
        }
    }

    mutating func emit(_ tokens: [PatternToken], classes: inout [ASCIIClass]) {
        for token in tokens {
            switch token {
            case .literal(let c): instructions.append(.consume(compiler.fold(c.value)))
            case .anyOne: instructions.append(.consume(Glob.anyOne))
            case .anyRun:
                if instructions.last != .star { instructions.append(.star) }
            case .variable(let name):
                switch compiler.variables.meaning(of: name) {
                case .characterClass(let cls): instructions.append(.consume(compiler.classToken(cls, &classes)))
                case .values(let values): emitAlternation(values, classes: &classes)
                case .undefined: break  // excluded by compile()
                }
            }
        }
    }

    /// Literal values go into a shared-prefix trie; values with wildcards get a branch each.
    mutating func emitAlternation(_ values: [String], classes: inout [ASCIIClass]) {
        let root = TrieNode()
        var wildcardValues: [String] = []
        var hasLiteral = false
        for value in values {
            if value.unicodeScalars.contains(where: { $0 == "*" || $0 == "?" }) {
                wildcardValues.append(value)
            } else {
                hasLiteral = true
                var node = root
                for c in value.unicodeScalars { node = node.child(compiler.fold(c.value)) }
                node.terminal = true
            }
        }
        let split = instructions.count
        instructions.append(.split([]))
        var branches: [Int] = []
        var exits: [Int] = []
        if hasLiteral { branches.append(emitTrie(root, exits: &exits)) }
        for value in wildcardValues {
            branches.append(instructions.count)
            emit(compiler.valueTokens(value), classes: &classes)
            exits.append(instructions.count)
            instructions.append(.jump(-1))
        }
        let end = instructions.count
        instructions[split] = .split(branches)
        for exit in exits { instructions[exit] = .jump(end) }
    }

    mutating func emitTrie(_ node: TrieNode, exits: inout [Int]) -> Int {
        let start = instructions.count
        instructions.append(.split([]))
        var targets: [Int] = []
        if node.terminal {
            targets.append(instructions.count)
            exits.append(instructions.count)
            instructions.append(.jump(-1))
        }
        for (c, child) in node.children {
            targets.append(instructions.count)
            instructions.append(.consume(c))
            _ = emitTrie(child, exits: &exits)
        }
        instructions[start] = .split(targets)
        return start
    }
}
