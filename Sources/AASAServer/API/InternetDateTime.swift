import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import Foundation

/// A date as the OpenAPI runtime's default transcoder writes it (`ISO8601DateFormatter` with its
/// default options: `2026-11-26T13:53:00Z`, UTC, whole seconds of the nearest millisecond), without
/// ICU: the formatter was a third of `AnswerEncoder`'s time on an app list (40 dates) in the
/// profile. `AnswerEncoderTests` checks it against the transcoder over random dates.
enum InternetDateTime {
    /// The date's text, or nil outside years 1000-9999 (the caller then asks the transcoder).
    static func string(_ date: Date) -> String? {
        // As ICU reads it: to the nearest millisecond first (CFDateFormatter hands it milliseconds
        // since 1970), then the whole seconds of that.
        let milliseconds = ((date.timeIntervalSinceReferenceDate + 978_307_200) * 1000).rounded()
        guard milliseconds.magnitude < 1e15 else { return nil }
        let total = Int64((milliseconds / 1000).rounded(.down))
        let days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
        let secondOfDay = total - days * 86_400
        let (year, month, day) = civil(days)
        guard (1000...9999).contains(year) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(20)
        append(year, width: 4, into: &out)
        out.append(UInt8(ascii: "-"))
        append(month, width: 2, into: &out)
        out.append(UInt8(ascii: "-"))
        append(day, width: 2, into: &out)
        out.append(UInt8(ascii: "T"))
        append(secondOfDay / 3600, width: 2, into: &out)
        out.append(UInt8(ascii: ":"))
        append(secondOfDay / 60 % 60, width: 2, into: &out)
        out.append(UInt8(ascii: ":"))
        append(secondOfDay % 60, width: 2, into: &out)
        out.append(UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }

    /// Year, month and day of a count of days since 1970-01-01 in the proleptic Gregorian
    /// calendar (Howard Hinnant's `civil_from_days`).
    static func civil(_ days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func append(_ value: Int64, width: Int, into out: inout [UInt8]) {
        var digits = [UInt8](repeating: UInt8(ascii: "0"), count: width)
        var rest = value
        for i in stride(from: width - 1, through: 0, by: -1) {
            digits[i] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
        out.append(contentsOf: digits)
    }
}
