import ClassifySupport
import Foundation
import Testing

@Suite struct BackgroundWorkTests {
    struct Refusal: Error, Equatable { let reason: String }

    @Test func theValueIsTheWorksAndCanBeTakenTwice() {
        let started = Date()
        let work = BackgroundWork { () throws(Never) -> Int in
            Thread.sleep(forTimeInterval: 0.05)
            return (1...100).reduce(0, +)
        }
        #expect(work.value() == 5050)
        #expect(work.value() == 5050)
        // value() waited for the work (no timing beyond that: the work slept 50 ms before returning).
        #expect(Date().timeIntervalSince(started) >= 0.05)
    }

    @Test func theWorksErrorIsThrownByValue() {
        let work = BackgroundWork { () throws(Refusal) -> Int in throw Refusal(reason: "no") }
        #expect(throws: Refusal(reason: "no")) { try work.value() }
        #expect(throws: Refusal(reason: "no")) { try work.value() }
    }

    @Test func theWorkRunsOnAnotherThread() {
        let caller = pthread_self()
        let work = BackgroundWork { () throws(Never) -> pthread_t in pthread_self() }
        #expect(pthread_equal(work.value(), caller) == 0)
    }
}
