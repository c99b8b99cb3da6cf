import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import Metrics

/// Series the alert rules and the dashboard (deploy/) read, created at start so that a rule over a
/// counter that has not moved yet reads 0 rather than nothing (and a check can tell a misspelt
/// name from a quiet one). Label names match those of the code that increments them.
enum MetricsCatalog {
    static func preregister() {
        _ = Counter(label: "aasad_publish_target_failures_total")
        for outcome in ["delivered", "retry", "failed"] {
            _ = Counter(label: "aasad_webhook_deliveries_total", dimensions: [("outcome", outcome)])
        }
        for status in ["200", "304", "404"] {
            _ = Counter(label: "aasad_wellknown_responses_total", dimensions: [("status", status)])
        }
        _ = Counter(label: "aasad_auth_failures_total", dimensions: [("reason", "missing")])
        _ = Counter(label: "aasad_reconcile_rewrites_total", dimensions: [("state", "missing")])
        for outcome in TokenExchange.outcomes {
            _ = Counter(label: "aasad_oidc_exchanges_total", dimensions: [("outcome", outcome)])
        }
        for outcome in ConsoleOIDCMetrics.outcomes {
            _ = Counter(label: "aasad_console_oidc_sign_ins_total", dimensions: [("outcome", outcome)])
        }
    }
}
