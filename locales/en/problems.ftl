# The `title` of each problem document (its `type` stays the stable key; see ProblemKind
# in api/src/error/mod.rs). One message per slug: problem-<slug>.
problem-validation = The request is not valid
problem-unauthorized = Authentication is required
problem-forbidden = Not allowed
problem-not-found = Not found
problem-method-not-allowed = Method not allowed
problem-conflict = Conflict with the current state
problem-payload-too-large = Request body too large
problem-unsupported-media-type = Unsupported media type
problem-headers-too-large = Request head too large
problem-rate-limited = Too many requests
problem-illegal-move = Illegal move
problem-not-your-turn = Not your turn
problem-version-conflict = The game has moved on
problem-game-over = The game is over
problem-game-not-started = The game has not started
problem-seat-taken = The seat is taken
problem-idempotency-key-reused = Idempotency key reused with another request
problem-unavailable = Service unavailable
problem-internal = Internal server error
problem-invalid-record = The game record does not replay
problem-precondition-required = The game's version is required
problem-request-timeout = The request took too long to arrive
problem-quota-exceeded = A quota is reached
