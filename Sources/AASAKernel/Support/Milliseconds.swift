extension Duration {
    /// The duration in milliseconds, for logs and answers that report how long something took.
    package var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}
