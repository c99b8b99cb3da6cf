/// RFC 3492 Punycode, the ASCII form of internationalised host labels (`xn--…`).
public enum Punycode {
    private static let base = 36, tMin = 1, tMax = 26, skew = 38, damp = 700
    private static let initialBias = 72, initialN = 0x80

    /// Encodes one label's scalars (without the `xn--` prefix). Nil on overflow.
    public static func encode(_ label: String) -> String? {
        let input = label.unicodeScalars.map { Int($0.value) }
        var output = input.filter { $0 < 0x80 }.map { Character(Unicode.Scalar(UInt8($0))) }
        let basicCount = output.count
        var handled = basicCount
        if basicCount > 0 { output.append("-") }
        var n = initialN
        var delta = 0
        var bias = initialBias
        while handled < input.count {
            guard let m = input.filter({ $0 >= n }).min() else { break }
            let (product, overflow) = (m - n).multipliedReportingOverflow(by: handled + 1)
            guard !overflow, delta <= Int(Int32.max) - product else { return nil }
            delta += product
            n = m
            for c in input {
                if c < n { delta += 1 }
                if c == n {
                    var q = delta
                    var k = base
                    while true {
                        let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                        if q < t { break }
                        output.append(digit(t + (q - t) % (base - t)))
                        q = (q - t) / (base - t)
                        k += base
                    }
                    output.append(digit(q))
                    bias = adapt(delta, handled + 1, handled == basicCount)
                    delta = 0
                    handled += 1
                }
            }
            delta += 1
            n += 1
        }
        return String(output)
    }

    /// Decodes one label (without the `xn--` prefix). Nil when it is not valid Punycode.
    public static func decode(_ encoded: String) -> String? {
        let scalars = Array(encoded.unicodeScalars)
        var output: [Int] = []
        var start = 0
        if let dash = scalars.lastIndex(of: "-") {
            for c in scalars[..<dash] {
                guard c.value < 0x80 else { return nil }
                output.append(Int(c.value))
            }
            start = dash + 1
        }
        var n = initialN
        var i = 0
        var bias = initialBias
        var pos = start
        while pos < scalars.count {
            let oldI = i
            var w = 1
            var k = base
            while true {
                guard pos < scalars.count, let d = digitValue(scalars[pos]) else { return nil }
                pos += 1
                let (dw, o1) = d.multipliedReportingOverflow(by: w)
                guard !o1, i <= Int(Int32.max) - dw else { return nil }
                i += dw
                let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                if d < t { break }
                let (nw, o2) = w.multipliedReportingOverflow(by: base - t)
                guard !o2, nw <= Int(Int32.max) else { return nil }
                w = nw
                k += base
            }
            bias = adapt(i - oldI, output.count + 1, oldI == 0)
            n += i / (output.count + 1)
            guard n <= 0x10FFFF else { return nil }
            i %= output.count + 1
            output.insert(n, at: i)
            i += 1
        }
        var result = String.UnicodeScalarView()
        for v in output {
            guard let s = Unicode.Scalar(UInt32(v)) else { return nil }
            result.append(s)
        }
        return String(result)
    }

    private static func adapt(_ delta: Int, _ numPoints: Int, _ firstTime: Bool) -> Int {
        var delta = firstTime ? delta / damp : delta / 2
        delta += delta / numPoints
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }

    private static func digit(_ d: Int) -> Character {
        Character(Unicode.Scalar(UInt8(d < 26 ? d + 0x61 : d - 26 + 0x30)))
    }

    private static func digitValue(_ c: Unicode.Scalar) -> Int? {
        switch c.value {
        case 0x30...0x39: Int(c.value) - 0x30 + 26
        case 0x41...0x5A: Int(c.value) - 0x41
        case 0x61...0x7A: Int(c.value) - 0x61
        default: nil
        }
    }
}
