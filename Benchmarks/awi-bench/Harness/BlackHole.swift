/// Keeps a result alive in the optimiser's eyes, so a measured call whose
/// result is otherwise unused cannot be removed or hoisted out of the loop.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
