import CrossmateSync

extension Snapshot {
    /// The snapshot as `JSONEncoder` writes it with sorted keys and unescaped slashes, byte for
    /// byte (`JSONText.sorted`), written by hand: a game's snapshot is stored every few hundred
    /// moves from the socket's event loop, and the encoder took 7 % of a loaded loop's time
    /// (BENCHMARKS.md); its tally's move times grow with the game.
    public var sortedJSON: String {
        var output = ""
        output.reserveCapacity(64 + grid.cells.count * 40 + (tally?.moveTimes.values.reduce(0) { $0 + $1.count * 6 } ?? 0))
        output.append(#"{"coverage":"#)
        Self.appendObject(coverage, to: &output) { $1.append(String($0)) }
        output.append(#","grid":{"cells":["#)
        for (index, cell) in grid.cells.enumerated() {
            if index > 0 { output.append(",") }
            Self.append(cell, to: &output)
        }
        output.append(#"],"height":\#(grid.height),"width":\#(grid.width)}"#)
        if let tally {
            output.append(#","tally":"#)
            Self.append(tally, to: &output)
        }
        output.append("}")
        return output
    }

    private static func append(_ cell: CellState, to output: inout String) {
        output.append(#"{"cellAuthorID":"#)
        JSONText.appendQuoted(cell.cellAuthorID, to: &output)
        if let key = cell.key {
            output.append(#","key":{"authorID":"#)
            JSONText.appendQuoted(key.authorID, to: &output)
            output.append(#","replicaID":"#)
            JSONText.appendQuoted(key.replicaID, to: &output)
            output.append(#","seq":\#(key.seq),"timestamp":"#)
            append(key.timestamp, to: &output)
            output.append("}")
        }
        output.append(#","letter":"#)
        JSONText.appendQuoted(cell.letter, to: &output)
        output.append(#","mark":{"isPencil":\#(cell.mark.isPencil),"verdict":\#(cell.mark.verdict.rawValue)}}"#)
    }

    private static func append(_ timestamp: HLCTimestamp, to output: inout String) {
        output.append(#"{"counter":\#(timestamp.counter),"wallMillis":\#(timestamp.wallMillis)}"#)
    }

    /// As `Tally.encode(to:)`: move times as the first and then the gaps between them.
    private static func append(_ tally: Tally, to output: inout String) {
        output.append("{")
        if let first = tally.firstHelp {
            output.append(#""firstHelp":"#)
            append(first, to: &output)
            output.append(",")
        }
        output.append(#""help":"#)
        appendObject(tally.help, to: &output) { help, output in
            output.append(
                #"{"checks":\#(help.checks),"reveals":\#(help.reveals),"squaresChecked":\#(help.squaresChecked),"squaresRevealed":\#(help.squaresRevealed)}"#
            )
        }
        output.append(#","lastGesture":"#)
        appendObject(tally.lastGesture, to: &output) { JSONText.appendQuoted($0, to: &$1) }
        output.append(#","moveTimes":"#)
        appendObject(tally.moveTimes, to: &output) { times, output in
            output.append("[")
            var previous: Int64 = 0
            for (index, time) in times.enumerated() {
                if index > 0 { output.append(",") }
                output.append(String(index == 0 ? time : time - previous))
                previous = time
            }
            output.append("]")
        }
        output.append("}")
    }

    /// A dictionary as an object, its keys in the order `JSONEncoder` sorts them (String's).
    private static func appendObject<Value>(
        _ dictionary: [String: Value], to output: inout String, _ appendValue: (Value, inout String) -> Void
    ) {
        output.append("{")
        for (index, key) in dictionary.keys.sorted().enumerated() {
            if index > 0 { output.append(",") }
            JSONText.appendQuoted(key, to: &output)
            output.append(":")
            appendValue(dictionary[key]!, &output)
        }
        output.append("}")
    }
}
