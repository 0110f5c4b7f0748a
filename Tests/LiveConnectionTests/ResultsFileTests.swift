import BenchmarkSupport
import Foundation
import PackageFiles
import Testing

/// A benchmark run replaces its own section of a results file and keeps the rest: the
/// comparisons written by hand under a run's figures are the history of each change.
@Suite("Benchmark results files keep what a run did not write")
struct ResultsFileTests {
    let file = """
        # Simulator benchmarks

        <!-- begin run -->
        - date: yesterday
        | figure | 1× |
        <!-- end run -->

        ## Before and after a change (added by hand)

        kept
        """

    @Test("a run's section is replaced in place; the text around it is byte for byte the same")
    func replacesInPlace() {
        let written = ResultsFile.replacing(section: "run", with: "\n- date: today\n| figure | 2× |\n\n", in: file)
        #expect(
            written == """
                # Simulator benchmarks

                <!-- begin run -->
                - date: today
                | figure | 2× |
                <!-- end run -->

                ## Before and after a change (added by hand)

                kept
                """)
        // Writing the same figures again changes nothing.
        #expect(ResultsFile.replacing(section: "run", with: "- date: today\n| figure | 2× |", in: written) == written)
    }

    @Test("a section not yet in the file is added at its end; the others stay where they were")
    func appendsNewSection() {
        let written = ResultsFile.replacing(section: "spin-model 20 20 8", with: "## Beside SPIN", in: file)
        #expect(written.hasPrefix(file))
        #expect(
            written.hasSuffix(
                "kept\n\n<!-- begin spin-model 20 20 8 -->\n## Beside SPIN\n<!-- end spin-model 20 20 8 -->\n"))
    }

    @Test(
        "every committed results file a benchmark writes has its sections' markers paired, so the next run finds its own",
        arguments: ["simulator", "kernel", "statistics", "transport", "checker"])
    func committedFilesHaveSections(name: String) throws {
        let text = try PackageFiles.text("Benchmarks/results/\(name).md")
        let begins = text.split(separator: "\n").filter { $0.hasPrefix("<!-- begin ") }
        #expect(!begins.isEmpty)
        for begin in begins {
            let end = begin.replacingOccurrences(of: "<!-- begin ", with: "<!-- end ")
            #expect(text.contains(end), "\(name).md: \(begin) has no \(end)")
        }
    }
}
