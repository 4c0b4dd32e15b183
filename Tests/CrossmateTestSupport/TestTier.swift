import Foundation
import Testing

/// The fast tier: `CROSSMATE_TESTS=fast swift test` leaves out the suites that start the real
/// `crossmate` (a server, a client, `play` in tmux), which are most of the run's time; what is
/// left runs in well under a minute. `scripts/test-all.sh` runs everything.
public enum TestTier {
    public static var isFast: Bool { ProcessInfo.processInfo.environment["CROSSMATE_TESTS"] == "fast" }
}

extension Trait where Self == ConditionTrait {
    /// The suite starts `crossmate` processes: not in the fast tier.
    public static var startsProcesses: Self {
        .disabled(if: TestTier.isFast, "starts crossmate processes; CROSSMATE_TESTS=fast leaves it out")
    }
}
