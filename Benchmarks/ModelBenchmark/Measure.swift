// Timing helpers: throughput over a minimum duration, per-call latencies, peak RSS.
import Foundation

func measure(urls: [String], minimumSeconds: Double, _ body: (String) -> String?) -> (
    perSecond: Double, latencies: [Double]
) {
    var done = 0
    var latencies: [Double] = []
    let clock = ContinuousClock()
    let start = clock.now
    var sink = 0
    repeat {
        for url in urls {
            let t0 = clock.now
            sink &+= body(url)?.utf8.count ?? 0
            let d = clock.now - t0
            latencies.append(Double(d.components.seconds) * 1e9 + Double(d.components.attoseconds) / 1e9)
            done += 1
        }
    } while (clock.now - start) < .seconds(minimumSeconds)
    let elapsed = clock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    if sink == 42 { print("") }
    return (Double(done) / seconds, latencies.sorted())
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

func peakRSSMiB() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}
