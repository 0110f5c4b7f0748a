#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Memory for the search's big, randomly probed arrays, in 2 MiB-aligned blocks that
/// the kernel may back with huge pages.
///
/// ```swift
/// let block = LargePages.allocate(bytes: 4 << 20)
/// defer { LargePages.deallocate(block, bytes: 4 << 20) }
/// ```
///
/// Why: every probe of the visited set lands on a random slot and a random state, in
/// arrays of hundreds of megabytes. With 4 KiB pages each such access also misses the
/// TLB and walks the page tables; with 2 MiB pages the TLB covers 512 times more.
/// On Linux the blocks are marked `MADV_HUGEPAGE` (transparent huge pages in their
/// `madvise` mode); elsewhere they are ordinary aligned memory.
@usableFromInline enum LargePages {
    @usableFromInline static let size = 2 << 20

    /// Uninitialized memory of at least `bytes`; blocks of 2 MiB or more are 2 MiB-aligned
    /// mappings of their own. Free with ``deallocate(_:bytes:)`` and the same `bytes`.
    @usableFromInline static func allocate(bytes: Int) -> UnsafeMutableRawPointer {
        #if canImport(Glibc)
            if bytes >= size {
                let length = rounded(bytes)
                // Map one huge page more than needed, then unmap the unaligned ends.
                guard let mapped = mmap(nil, length + size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
                    mapped != MAP_FAILED
                else { preconditionFailure("out of memory mapping \(bytes) bytes for the search") }
                let address = Int(bitPattern: mapped)
                let aligned = (address + size - 1) & ~(size - 1)
                if aligned > address { munmap(mapped, aligned - address) }
                let tail = address + length + size - (aligned + length)
                if tail > 0 { munmap(UnsafeMutableRawPointer(bitPattern: aligned + length), tail) }
                guard let pointer = UnsafeMutableRawPointer(bitPattern: aligned) else {
                    preconditionFailure("mapping at address 0")
                }
                _ = madvise(pointer, length, MADV_HUGEPAGE)
                return pointer
            }
        #endif
        return UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
    }

    @usableFromInline static func deallocate(_ pointer: UnsafeMutableRawPointer, bytes: Int) {
        #if canImport(Glibc)
            if bytes >= size {
                munmap(pointer, rounded(bytes))
                return
            }
        #endif
        pointer.deallocate()
    }

    private static func rounded(_ bytes: Int) -> Int { (bytes + size - 1) & ~(size - 1) }
}
