/// An append-only array stored in fixed chunks of about 2 MiB, for the breadth-first
/// search's per-state columns (states, parents, emission ordinals).
///
/// ```swift
/// let parents = ChunkedArray<UInt32>()
/// parents.reserve(upTo: 3)
/// for index in 0..<3 { parents.initialize(index, to: UInt32(index)) }
/// parents.count = 3
/// parents[2]   // 2
/// ```
///
/// Why not `Array`: an array that grows by doubling holds up to twice what it needs
/// (at 17 million states that slack was 40 % of the search's memory) and copies
/// everything at each growth. Chunks cost one chunk of slack and never move, so
/// worker threads may read elements and write disjoint reserved ones while nobody
/// reserves (the search's phases guarantee that). Indexing is two loads, the first
/// into a small directory that stays in cache.
@usableFromInline final class ChunkedArray<Element>: @unchecked Sendable {
    /// Elements per chunk, as a power of two: 2 MiB worth (one huge page, see ``LargePages``).
    @inlinable static var chunkShift: Int {
        let stride = MemoryLayout<Element>.stride
        return 21 - (Int.bitWidth - 1 - stride.leadingZeroBitCount)
    }
    @inlinable static var chunkSize: Int { 1 << chunkShift }

    @usableFromInline var directory: UnsafeMutablePointer<UnsafeMutablePointer<Element>>
    @usableFromInline var directoryCapacity: Int
    @usableFromInline var chunks = 0
    /// Elements initialized, all below this index (set by the owner after filling a reserved range).
    @usableFromInline var count = 0

    @inlinable init() {
        directoryCapacity = 64
        directory = .allocate(capacity: directoryCapacity)
    }

    deinit {
        var remaining = count
        for chunk in 0..<chunks {
            let initialized = min(remaining, Self.chunkSize)
            directory[chunk].deinitialize(count: initialized)
            LargePages.deallocate(directory[chunk], bytes: Self.chunkSize * MemoryLayout<Element>.stride)
            remaining -= initialized
        }
        directory.deallocate()
    }

    /// Elements that fit without allocating.
    @inlinable var capacity: Int { chunks << Self.chunkShift }

    /// Bytes allocated for elements.
    @inlinable var bytes: Int { capacity * MemoryLayout<Element>.stride }

    /// Makes indices below `size` writable. Not thread-safe: call between phases.
    @inlinable func reserve(upTo size: Int) {
        while capacity < size {
            if chunks == directoryCapacity {
                let bigger = UnsafeMutablePointer<UnsafeMutablePointer<Element>>.allocate(
                    capacity: directoryCapacity * 2)
                bigger.moveInitialize(from: directory, count: chunks)
                directory.deallocate()
                directory = bigger
                directoryCapacity *= 2
            }
            directory[chunks] = LargePages.allocate(bytes: Self.chunkSize * MemoryLayout<Element>.stride)
                .bindMemory(to: Element.self, capacity: Self.chunkSize)
            chunks += 1
        }
    }

    /// Writes the element at a reserved, not yet initialized index.
    @inline(__always)
    @inlinable func initialize(_ index: Int, to element: Element) {
        (directory[index >> Self.chunkShift] + (index & (Self.chunkSize - 1))).initialize(to: element)
    }

    /// Appends one element (single-threaded use).
    @inlinable func append(_ element: Element) {
        reserve(upTo: count + 1)
        initialize(count, to: element)
        count += 1
    }

    @inline(__always)
    @inlinable subscript(index: Int) -> Element {
        directory[index >> Self.chunkShift][index & (Self.chunkSize - 1)]
    }

    /// The address of an element, to touch its cache line ahead of use.
    @inline(__always)
    @inlinable func address(_ index: Int) -> UnsafeRawPointer {
        UnsafeRawPointer(directory[index >> Self.chunkShift] + (index & (Self.chunkSize - 1)))
    }

    /// The elements as a plain value: valid until the next ``reserve(upTo:)``.
    @inlinable var view: View { View(directory: directory) }

    /// Reads without class field loads, for the hot loops of a phase in which nobody
    /// reserves.
    @usableFromInline struct View: @unchecked Sendable {
        @usableFromInline let directory: UnsafeMutablePointer<UnsafeMutablePointer<Element>>

        @inlinable init(directory: UnsafeMutablePointer<UnsafeMutablePointer<Element>>) {
            self.directory = directory
        }

        @inline(__always)
        @inlinable subscript(index: Int) -> Element {
            directory[index >> ChunkedArray.chunkShift][index & (ChunkedArray.chunkSize - 1)]
        }

        @inline(__always)
        @inlinable func address(_ index: Int) -> UnsafeRawPointer {
            UnsafeRawPointer(directory[index >> ChunkedArray.chunkShift] + (index & (ChunkedArray.chunkSize - 1)))
        }
    }
}
