import CrossmateSync

/// The shared seeded generator, under the name these tests use.
typealias SeededRandom = SeededRandomNumberGenerator
