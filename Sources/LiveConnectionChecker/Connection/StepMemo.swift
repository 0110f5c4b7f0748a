/// A worker thread's cache of machine steps: per machine code, the outcomes of each
/// input, filled in as they are first needed.
///
/// ```swift
/// var memo = model.makeMemo()
/// _ = model.check()   // each worker keeps its own memo across levels
/// memo.count          // machine codes cached so far
/// ```
///
/// The machine is a pure function of its value, the input and the random words, so a
/// step computed once is valid forever; the environment around it is what multiplies
/// the state space, and stepping the environment is bit arithmetic. Everything is flat
/// arrays of plain values (no dictionaries, no classes, no arrays of arrays), so the
/// hot path does no reference counting: one probe of a small open-addressing table per
/// state finds the machine's row (two consecutive states often share the machine, so
/// the last row is remembered), then each input is an array index.
public struct StepMemo {
    /// Open addressing from machine code to row + 1 (0: empty).
    private var codes: [UInt64]
    private var rowOf: [UInt32]
    private var mask: Int
    /// Rows allocated (machine codes seen).
    public private(set) var count = 0
    private var width = 0
    /// Per (row, input): 0 not computed yet, ``selfLoop``, or start << 2 | count of the
    /// input's outcomes in `outcomes`.
    private var cells: [UInt32] = []
    /// Every outcome cached, each naming its effects in `effects`.
    private(set) var outcomes: [CachedOutcome] = []
    private(set) var effects: [MicroEffect] = []
    /// Per (filter key, input): 0 not asked yet, 1 the filter accepts the input's action,
    /// 2 it rejects it (see ``ConnectionModel/expand(_:memo:where:filterKey:_:)``).
    private var verdicts: [UInt8] = []
    private var lastCode: UInt64 = .max  // codes use 48 bits: never a real code
    private var lastRow = 0

    /// The cell of a late input whose step changes nothing and does nothing.
    static let selfLoop: UInt32 = .max

    public init() {
        codes = Array(repeating: 0, count: 256)
        rowOf = Array(repeating: 0, count: 256)
        mask = 255
    }

    /// The row of a machine code, allocated on first sight with one cell per input.
    mutating func row(_ code: UInt64, inputs: Int) -> Int {
        if code == lastCode { return lastRow }
        var slot = Self.home(code) & mask
        while rowOf[slot] != 0 {
            if codes[slot] == code {
                lastCode = code
                lastRow = Int(rowOf[slot]) - 1
                return lastRow
            }
            slot = (slot + 1) & mask
        }
        precondition(width == 0 || width == inputs, "a memo serves one model")
        width = inputs
        let row = count
        count += 1
        codes[slot] = code
        rowOf[slot] = UInt32(count)
        cells.append(contentsOf: repeatElement(0, count: inputs))
        if count * 4 > codes.count * 3 { grow() }
        lastCode = code
        lastRow = row
        return row
    }

    @inline(__always)
    func cell(_ row: Int, _ input: Int) -> UInt32 { cells[row * width + input] }

    /// Caches a computed step; returns its cell.
    mutating func fill(_ row: Int, _ input: Int, with computed: [MachineOutcome], late: Bool) -> UInt32 {
        let cell: UInt32
        if late && computed.count == 1 && computed[0].isNoOp {
            cell = Self.selfLoop
        } else {
            precondition((1...3).contains(computed.count), "\(computed.count) outcomes of one step")
            precondition(outcomes.count < 1 << 29, "step memo full")
            cell = UInt32(outcomes.count) << 2 | UInt32(computed.count)
            for outcome in computed {
                precondition(effects.count < Int(UInt32.max) && outcome.effects.count < 256, "step memo full")
                outcomes.append(
                    CachedOutcome(
                        machine: outcome.machine, firstEffect: UInt32(effects.count),
                        effectCount: UInt8(outcome.effects.count), minted: outcome.minted,
                        staleChanged: outcome.staleChanged))
                effects.append(contentsOf: outcome.effects)
            }
        }
        cells[row * width + input] = cell
        return cell
    }

    /// Whether the filter keyed `key` accepts input `input` (of `inputs`), asking
    /// `accepts` only the first time.
    @inline(__always)
    mutating func verdict(_ key: Int, _ input: Int, inputs: Int, _ accepts: () -> Bool) -> Bool {
        let cell = key * inputs + input
        if cell >= verdicts.count { verdicts.append(contentsOf: repeatElement(0, count: cell + 1 - verdicts.count)) }
        if verdicts[cell] == 0 { verdicts[cell] = accepts() ? 1 : 2 }
        return verdicts[cell] == 1
    }

    private static func home(_ code: UInt64) -> Int {
        Int(truncatingIfNeeded: (code &* 0x9E37_79B9_7F4A_7C15) >> 32)
    }

    private mutating func grow() {
        let oldCodes = codes, oldRows = rowOf
        codes = Array(repeating: 0, count: oldCodes.count * 2)
        rowOf = Array(repeating: 0, count: oldCodes.count * 2)
        mask = codes.count - 1
        for (code, row) in zip(oldCodes, oldRows) where row != 0 {
            var slot = Self.home(code) & mask
            while rowOf[slot] != 0 { slot = (slot + 1) & mask }
            codes[slot] = code
            rowOf[slot] = row
        }
    }
}

/// A ``MachineOutcome`` as the memo keeps it: its effects are a range of the memo's
/// effect array.
struct CachedOutcome {
    var machine: UInt64
    var firstEffect: UInt32
    var effectCount: UInt8
    var minted: Bool
    var staleChanged: Bool
}
