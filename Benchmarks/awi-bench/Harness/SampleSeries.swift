import AWIBenchResults

/// The timed samples of one side of a comparison.
struct SampleSeries: Sendable {
    private(set) var wall: [Double] = []
    private(set) var cpu: [Double] = []

    mutating func append(_ sample: Sample) {
        wall.append(sample.wall)
        cpu.append(sample.cpu)
    }

    var count: Int { wall.count }
    var wallStatistics: Statistics? { Statistics(wall) }
    var cpuStatistics: Statistics? { Statistics(cpu) }

    /// The median seconds per operation on `basis`.
    func median(_ basis: TimeBasis) -> Double? {
        switch basis {
        case .wall: wallStatistics?.median
        case .cpu: cpuStatistics?.median
        }
    }
}
