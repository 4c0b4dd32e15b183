import CrossmateProtocol

/// The commands a hosted browser replica has answered, so a command sent again (after a lost
/// answer, or a restart on any instance) is answered rather than performed twice. A command is
/// named by its id and the time it was typed (ids start again in a browser whose queue was
/// wiped; times do not).
struct CommandLedger {
    private struct Key: Hashable {
        var id: Int
        var typedAt: Int64?
    }

    /// The batches of this device's journal: a command's moves are one batch named after the
    /// command (`batchID(for:device:)`), found here whichever instance performed it.
    private var performedBatches: Set<String>
    /// The latest commands answered (nil: applied). Bounded in bytes: at most `answersKept`
    /// entries, each reason at most `ErrorBody.maximumMessageBytes`, its game id at most
    /// `ProtocolLimits.maximumIdentifierBytes`. Commands that made moves are also found in the
    /// journal, which outlives this memory.
    private var answered: [Key: CommandRefusal?] = [:]
    private var answeredOrder: [Key] = []
    static let answersKept = 256

    init(batches: some Sequence<String>) { performedBatches = Set(batches) }

    /// The batch a command's moves are stored under: the device, the command's id and the time
    /// it was typed. A command without its time has no lasting identity (the server refuses it).
    static func batchID(for request: CommandRequest, device deviceID: String) -> String? {
        request.typedAt.map { "\(deviceID):c\(request.id):\($0)" }
    }

    /// How `request` was answered before: `.some(nil)` applied, `.some(refusal)` refused, nil
    /// never seen.
    func earlier(_ request: CommandRequest, device deviceID: String) -> CommandRefusal?? {
        if let answer = answered[Key(id: request.id, typedAt: request.typedAt)] { return answer }
        let performed = Self.batchID(for: request, device: deviceID).map(performedBatches.contains) ?? false
        return performed ? .some(nil) : nil
    }

    /// Remembers the answer to `request` (nil: applied); refusals a browser sends again
    /// (rate limits, the server's own faults) are not remembered.
    mutating func remember(_ request: CommandRequest, _ answer: ServerSocketMessage) {
        let refusal: CommandRefusal?
        switch answer {
        case let .refused(refused) where refused.code == .rateLimited || refused.code == .serverError: return
        case let .refused(refused): refusal = refused
        default: refusal = nil
        }
        let key = Key(id: request.id, typedAt: request.typedAt)
        if answered.updateValue(refusal, forKey: key) == nil { answeredOrder.append(key) }
        if answeredOrder.count > Self.answersKept { answered[answeredOrder.removeFirst()] = nil }
    }

    /// A batch of this device's is stored (made here, or read back from the zone).
    mutating func performed(_ batchID: String) { performedBatches.insert(batchID) }
}
