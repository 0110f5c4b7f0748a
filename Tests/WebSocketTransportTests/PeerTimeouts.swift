/// How long a peer test waits for a handshake with a local peer (a Python peer, `livesim
/// serve`, an in-process server): 60 s, not the transport's default 10 s. On a loaded 2-core
/// machine a peer process or a starved cooperative pool can take tens of seconds to answer
/// (three deflate tests timed out at 10 s with the suite at load 10), and these tests judge
/// behaviour, not speed; the wait still has a deadline, so a peer that never answers fails
/// the test instead of hanging it.
let peerConnectTimeout = Duration.seconds(60)

/// How long a peer test waits for something that should happen on a connection already
/// open (a peer's reply to a command, a ping's pong): generous, for the reason above.
let peerReplyTimeout = Duration.seconds(30)
