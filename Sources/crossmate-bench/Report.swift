import Foundation

/// A benchmark's results: printed as an aligned table, or as one JSON object.
struct Report {
    var title: String
    var rows: [(key: String, label: String, value: Double, unit: String)] = []

    mutating func add(_ key: String, _ label: String, _ value: Double, _ unit: String) {
        rows.append((key, label, value, unit))
    }

    func print(json: Bool, extra: [String: Any] = [:]) {
        if json {
            var object = extra
            for row in rows { object[row.key] = (row.value * 1000).rounded() / 1000 }
            let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            Swift.print(String(decoding: data, as: UTF8.self))
            return
        }
        Swift.print(title)
        let width = rows.map(\.label.count).max() ?? 0
        for row in rows {
            let label = row.label.padding(toLength: width, withPad: " ", startingAt: 0)
            Swift.print("  \(label)  \(format(row.value)) \(row.unit)")
        }
    }

    private func format(_ value: Double) -> String {
        value >= 100 ? String(Int(value.rounded())) : String(format: "%.3f", value)
    }
}

/// Wall-clock time of `body`, in seconds.
func measure(_ body: () -> Void) -> Double {
    let clock = ContinuousClock()
    return clock.measure(body).inSeconds
}

extension Duration {
    var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
}
