import AWIBenchResults

/// What is known to bound each target, case by case: the one place that
/// says why a figure can sit below its target and whether that needs the
/// library to change. A miss with nothing here is marked for a look.
enum TargetBounds {
    /// The known bound of `row`'s case, `nil` when nothing is known.
    static func bound(for row: ResultRow) -> TargetBound? {
        nil
    }
}
