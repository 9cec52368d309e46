/// How often and for how long one case repeats its operations.
///
/// Every loop in the benchmark is bounded twice: by a maximum count and by a
/// wall-time budget (after the minimum count), so a slow machine finishes late
/// rather than never.
struct MeasurementPlan: Sendable {
    /// Untimed rounds of each side first: page faults, caches, lazy set-up.
    var warmup: Int
    /// Timed rounds of each side at least, whatever the budget.
    var minIterations: Int
    /// Timed rounds of each side at most.
    var maxIterations: Int
    /// Wall seconds after which no new round starts (once `minIterations` are done).
    var budget: Double

    /// The plan scaled by the run's options: `--quick` cuts rounds and budget,
    /// `--duration-scale` multiplies the budget (and the maximum count with it).
    func scaled(by options: BenchmarkOptions) -> MeasurementPlan {
        var plan = self
        let scale = options.durationScale * (options.quick ? 0.2 : 1)
        plan.budget = budget * scale
        if options.quick {
            plan.warmup = min(warmup, 1)
            plan.minIterations = min(minIterations, 2)
        }
        if scale > 1 {
            plan.maxIterations = Int((Double(maxIterations) * scale).rounded(.up))
        } else if options.quick {
            plan.maxIterations = max(plan.minIterations, Int((Double(maxIterations) * 0.2).rounded(.up)))
        }
        return plan
    }
}
