# Notification mails (api/src/notifications/email.rs). What each kind of notification says.
mail-kind-your_turn = Your turn
mail-kind-reminder = Reminder: your deadline is near
mail-kind-timeout = A seat ran out of time
mail-kind-chief_killed = Your chief was killed
mail-kind-seat_eliminated = You were eliminated
mail-kind-game_started = The game started
mail-kind-game_ended = The game ended
mail-kind-draw_offered = A draw is offered
mail-kind-message = A message at the table
mail-kind-webhook_disabled = A webhook endpoint was disabled
mail-kind-other = News from Djambi
mail-subject-game = [Djambi] { $what } in game { $game } ({ $players })
mail-subject-plain = [Djambi] { $what }
mail-intro-game = { $what } in game { $game }.
mail-players = Players: { $players }
mail-to-move = To move: { $seat } ({ $player })
mail-to-move-deadline = To move: { $seat } ({ $player }), deadline { $deadline } (in { $left })
mail-to-move-overdue = To move: { $seat } ({ $player }), deadline { $deadline } (passed)
mail-status = Status: { $status }
mail-status-open = waiting for players
mail-status-active = being played
mail-status-finished = finished
mail-wrote-table = { $seat } wrote to the table:
mail-wrote-private = { $seat } wrote privately to { $seats }:
mail-reminder-before = This reminder comes { $before } before the deadline.
mail-last-moves = Last moves: { $moves }
# The mail commands (resign, draw offer, …) stay in English: the server reads them so.
mail-move-by-mail = Move by mail: reply to { $address } with your move (e.g. C8-D7), resign, draw offer, draw accept or draw decline on the first line.
mail-open-game = Open the game: { $url }
mail-board = Board: { $url }
mail-endpoint = Endpoint: { $url }
mail-reason = Reason: { $reason }
mail-stop = Stop these mails: { $url }
mail-note = (Notification { $id } at { $at })
# The daily digest.
mail-digest-subject = [Djambi] Your daily digest of { $day }: { $count ->
    [one] one item
   *[other] { $count } items
}
mail-digest-intro = Your Djambi notifications of { $day } ({ $count ->
    [one] one item
   *[other] { $count } items
}).
# Account mails (not notifications: they cannot be turned off).
mail-hello = Hello { $name },
mail-verify-subject = [Djambi] Confirm your e-mail address
mail-verify-ask = Please confirm that this is the address of your Djambi account { $name }: open this link and press the button (it works once, for 48 hours):
mail-verify-until = Until then no notification mail is sent here, and moves by mail are refused.
mail-verify-ignore = If you did not register, ignore this mail: nothing will be sent to you.
mail-reset-subject = [Djambi] Reset your password
mail-reset-ask = Someone (you, we hope) asked to reset the password of the Djambi account { $name }. This token works once, for one hour:
mail-reset-how = Set a new password with it: POST { $url }
mail-reset-with = with { $json }. Every session and personal access token of the account then ends.
mail-reset-ignore = If you did not ask for this, ignore this mail: your password stays as it is.
mail-changed-subject = [Djambi] Your password was reset
mail-changed-body = The password of your Djambi account { $name } was reset on { $at } with a link sent to this address. Every session and personal access token of the account has ended.
mail-changed-warn = If this was not you, reset the password again at once and check the address of your account.
mail-account-subject = [Djambi] About your account
mail-account-body = News about your Djambi account.
# The pages that mail links open (no login).
unsubscribe-title = Djambi: stop mails
unsubscribe-question = Stop all notification mails from Djambi?
unsubscribe-button = Unsubscribe
confirm-title = Djambi: confirm your address
confirm-question = Confirm that this address is yours?
confirm-button = Confirm
