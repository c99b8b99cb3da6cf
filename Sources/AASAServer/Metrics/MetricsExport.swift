import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import Metrics
import Prometheus

/// The process's Prometheus registry. swift-metrics has one global backend per process, so the
/// registry is bootstrapped once and shared by every application built in it (tests build many).
struct MetricsExport: Sendable {
    static let shared: MetricsExport = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return MetricsExport(registry: registry)
    }()

    let registry: PrometheusCollectorRegistry

    func text() -> String { registry.emitToString() }
}
