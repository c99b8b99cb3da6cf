/// A compiled pattern that matches a whole subject given as Unicode scalar values.
///
/// Plain patterns (`*`, `?`, literals, one-character classes) run a greedy two-pointer glob that
/// remembers only the last `*`: no allocation, O(pattern × subject) at worst, linear in practice.
/// Patterns with multi-valued variables (`$(lang)`, custom lists) run a Thompson NFA whose list
/// alternatives share prefixes in a trie, so `$(lang)` costs a few states per step, not 600.
struct Glob: Sendable, Hashable {
    enum Program: Sendable, Hashable {
        /// Matches nothing (a variable with no values, or one that is not defined).
        case never
        /// Exactly these scalars.
        case literal([UInt32])
        /// Tokens: scalars, `Glob.anyOne`, `Glob.anyRun`, or `Glob.classBase + k`.
        case simple([UInt32])
        case nfa(NFA)
    }

    static let anyRun: UInt32 = 0xFFFF_FFFF
    static let anyOne: UInt32 = 0xFFFF_FFFE
    static let classBase: UInt32 = 0xFFFE_0000

    let program: Program
    let classes: [ASCIIClass]

    @inline(__always)
    func token(_ t: UInt32, accepts c: UInt32) -> Bool {
        if t < 0x110000 { return t == c }
        if t == Glob.anyOne { return true }
        return classes[Int(t &- Glob.classBase)].contains(c)
    }

    func matches(_ subject: [UInt32]) -> Bool {
        switch program {
        case .never: return false
        case .literal(let literal): return literal == subject
        case .simple(let tokens): return simpleMatch(tokens, subject)
        case .nfa(let nfa): return nfa.matches(subject, glob: self)
        }
    }

    /// Greedy glob: on a mismatch, retry from the last `*` with one more character consumed by it.
    /// Keeping only the last star is enough because `*` matches any run, so an earlier star never
    /// needs to take back what a later one could not use.
    private func simpleMatch(_ p: [UInt32], _ s: [UInt32]) -> Bool {
        p.withUnsafeBufferPointer { p in
            s.withUnsafeBufferPointer { s in
                var pi = 0
                var si = 0
                var starP = -1
                var starS = 0
                while si < s.count {
                    if pi < p.count {
                        let t = p[pi]
                        if t == Glob.anyRun {
                            starP = pi
                            starS = si
                            pi += 1
                            continue
                        }
                        if token(t, accepts: s[si]) {
                            pi += 1
                            si += 1
                            continue
                        }
                    }
                    guard starP >= 0 else { return false }
                    pi = starP + 1
                    starS += 1
                    si = starS
                }
                while pi < p.count && p[pi] == Glob.anyRun { pi += 1 }
                return pi == p.count
            }
        }
    }
}

/// A Thompson NFA over scalars, simulated with two sparse state sets (no backtracking).
struct NFA: Sendable, Hashable {
    enum Instruction: Sendable, Hashable {
        /// Consume one scalar accepted by the token (see `Glob.simple`), go to the next instruction.
        case consume(UInt32)
        /// `*`: consume any scalar and stay, or go on to the next instruction without consuming.
        case star
        case split([Int])
        case jump(Int)
        case accept
    }

    var instructions: [Instruction]

    func matches(_ subject: [UInt32], glob: Glob) -> Bool {
        var current = StateSet(capacity: instructions.count)
        var next = StateSet(capacity: instructions.count)
        var stack: [Int] = []
        addClosure(0, to: &current, stack: &stack)
        for c in subject {
            next.removeAll()
            for pc in current.members {
                switch instructions[pc] {
                case .consume(let t) where glob.token(t, accepts: c): addClosure(pc + 1, to: &next, stack: &stack)
                case .star: addClosure(pc, to: &next, stack: &stack)
                default: break
                }
            }
            swap(&current, &next)
            if current.members.isEmpty { return false }
        }
        return current.members.contains { if case .accept = instructions[$0] { return true } else { return false } }
    }

    /// Adds `start` and everything reachable from it without consuming (explicit stack: hostile
    /// patterns can chain thousands of empty alternatives).
    private func addClosure(_ start: Int, to set: inout StateSet, stack: inout [Int]) {
        stack.append(start)
        while let pc = stack.popLast() {
            guard set.insert(pc) else { continue }
            switch instructions[pc] {
            case .split(let targets): stack.append(contentsOf: targets.reversed())
            case .jump(let target): stack.append(target)
            case .star: stack.append(pc + 1)
            case .consume, .accept: break
            }
        }
    }
}

/// A set of small integers with O(1) insert, membership and clear (the classic sparse set).
struct StateSet {
    var members: [Int] = []
    private var marks: [UInt32]
    private var generation: UInt32 = 1

    init(capacity: Int) {
        marks = [UInt32](repeating: 0, count: capacity)
        members.reserveCapacity(min(capacity, 64))
    }

    /// Inserts `x`; false when it was already there.
    mutating func insert(_ x: Int) -> Bool {
        if marks[x] == generation { return false }
        marks[x] = generation
        members.append(x)
        return true
    }

    mutating func removeAll() {
        members.removeAll(keepingCapacity: true)
        generation &+= 1
        if generation == 0 {
            for i in marks.indices { marks[i] = 0 }
            generation = 1
        }
    }
}
