# Les mails de notification (api/src/notifications/email.rs).
mail-kind-your_turn = À vous de jouer
mail-kind-reminder = Rappel : votre délai approche
mail-kind-timeout = Une place a dépassé son temps
mail-kind-chief_killed = Votre chef a été tué
mail-kind-seat_eliminated = Vous avez été éliminé
mail-kind-game_started = La partie a commencé
mail-kind-game_ended = La partie est terminée
mail-kind-draw_offered = Une nulle est proposée
mail-kind-message = Un message à la table
mail-kind-webhook_disabled = Un webhook a été désactivé
mail-kind-other = Des nouvelles de Djambi
mail-subject-game = [Djambi] { $what } dans la partie { $game } ({ $players })
mail-subject-plain = [Djambi] { $what }
mail-intro-game = { $what } dans la partie { $game }.
mail-players = Joueurs : { $players }
mail-to-move = Au trait : { $seat } ({ $player })
mail-to-move-deadline = Au trait : { $seat } ({ $player }), délai { $deadline } (dans { $left })
mail-to-move-overdue = Au trait : { $seat } ({ $player }), délai { $deadline } (dépassé)
mail-status = État : { $status }
mail-status-open = en attente de joueurs
mail-status-active = en cours
mail-status-finished = terminée
mail-wrote-table = { $seat } a écrit à la table :
mail-wrote-private = { $seat } a écrit en privé à { $seats } :
mail-reminder-before = Ce rappel arrive { $before } avant le délai.
mail-last-moves = Derniers coups : { $moves }
# Les commandes par mail (resign, draw offer, …) restent en anglais : le serveur les lit ainsi.
mail-move-by-mail = Jouer par mail : répondez à { $address } avec votre coup (par ex. C8-D7), resign, draw offer, draw accept ou draw decline en première ligne.
mail-open-game = Ouvrir la partie : { $url }
mail-board = Plateau : { $url }
mail-endpoint = Adresse : { $url }
mail-reason = Raison : { $reason }
mail-stop = Ne plus recevoir ces mails : { $url }
mail-note = (Notification { $id } du { $at })
mail-digest-subject = [Djambi] Votre résumé du { $day } : { $count ->
    [one] un élément
   *[other] { $count } éléments
}
mail-digest-intro = Vos notifications Djambi du { $day } ({ $count ->
    [one] un élément
   *[other] { $count } éléments
}).
mail-hello = Bonjour { $name },
mail-verify-subject = [Djambi] Confirmez votre adresse e-mail
mail-verify-ask = Confirmez que c'est bien l'adresse de votre compte Djambi { $name } : ouvrez ce lien et appuyez sur le bouton (il sert une fois, pendant 48 heures) :
mail-verify-until = D'ici là, aucun mail de notification n'est envoyé ici et les coups par mail sont refusés.
mail-verify-ignore = Si vous ne vous êtes pas inscrit, ignorez ce mail : rien ne vous sera envoyé.
mail-reset-subject = [Djambi] Réinitialiser votre mot de passe
mail-reset-ask = Quelqu'un (vous, espérons-le) a demandé à réinitialiser le mot de passe du compte Djambi { $name }. Ce jeton sert une fois, pendant une heure :
mail-reset-how = Choisissez un nouveau mot de passe avec : POST { $url }
mail-reset-with = avec { $json }. Toutes les sessions et tous les jetons d'accès personnels du compte prennent alors fin.
mail-reset-ignore = Si vous n'avez rien demandé, ignorez ce mail : votre mot de passe reste le même.
mail-changed-subject = [Djambi] Votre mot de passe a été réinitialisé
mail-changed-body = Le mot de passe de votre compte Djambi { $name } a été réinitialisé le { $at } avec un lien envoyé à cette adresse. Toutes les sessions et tous les jetons d'accès personnels du compte ont pris fin.
mail-changed-warn = Si ce n'était pas vous, réinitialisez tout de suite le mot de passe et vérifiez l'adresse de votre compte.
mail-account-subject = [Djambi] À propos de votre compte
mail-account-body = Des nouvelles de votre compte Djambi.
unsubscribe-title = Djambi : ne plus recevoir de mails
unsubscribe-question = Ne plus recevoir aucun mail de notification de Djambi ?
unsubscribe-button = Me désabonner
confirm-title = Djambi : confirmer votre adresse
confirm-question = Confirmer que cette adresse est la vôtre ?
confirm-button = Confirmer

# Réponses aux coups par courriel (api/src/mail_moves/receive.rs). Les commandes restent canoniques.
move-answer-subject = [Djambi] { $title } (partie { $game })
move-answer-title-used = Déjà joué
move-answer-title-expired = Cette adresse de réponse a expiré
move-answer-title-locked = Cette adresse de réponse est verrouillée
move-answer-title-game-over = La partie est terminée
move-answer-title-stale = La partie a avancé
move-answer-title-empty = Rien à jouer
move-answer-title-grammar = Réponse incomprise
move-answer-title-played = Joué
move-answer-title-illegal = Coup illégal
move-answer-title-refused = Impossible
move-answer-game-over = La partie est terminée.
move-answer-stale = La partie a avancé depuis ce courriel : votre réponse n'a pas été jouée.
move-answer-grammar = Répondez au courriel de votre tour avec l'une de ces commandes sur la première ligne (rien d'autre n'est lu) : un coup dans la notation de la partie, comme C8-D7 ou B8xE5/F4 (majuscules ou minuscules), resign, draw offer, draw accept, draw decline.
move-answer-empty = Votre réponse ne contenait aucun texte.
move-answer-already-played = Ce courriel de tour a déjà reçu une réponse : une adresse de réponse ne joue qu'une fois. Attendez votre prochain courriel de tour.
move-answer-expired = Cette adresse de réponse a expiré. Jouez sur la page de la partie, ou attendez votre prochain courriel de tour.
move-answer-locked = Trop de réponses à ce courriel de tour ont été refusées : son adresse est verrouillée. Un nouveau courriel de tour, avec une nouvelle adresse, a été envoyé.
move-answer-played = Joué : { $seat } { $move }
move-answer-resigned = { $seat } abandonne.
move-answer-draw-offered = { $seat } propose la nulle.
move-answer-draw-accepted = { $seat } accepte la nulle.
move-answer-draw-declined = { $seat } refuse la nulle.
move-answer-ended = La partie est terminée : { $result }
move-answer-effect = Effet : { $effect }
move-answer-illegal = { $line } n'est pas légal ici : { $detail }.
move-answer-to-move = Au trait : { $seat }
move-answer-to-move-deadline = Au trait : { $seat }, échéance { $deadline }
move-answer-status = État : { $status }
move-answer-board = Plateau : { $url }
move-answer-game = Partie : { $url }
move-answer-piece-moves = Coups légaux de la pièce en { $square } : { $moves }
move-answer-piece-stuck = La pièce en { $square } ne peut pas bouger (ou n'est pas à vous). Vous avez { $count } coups légaux ; voyez-les sur la page de la partie.
move-answer-all-moves = Coups légaux : { $moves }
move-answer-footer = Ceci répond à votre courriel { $message } au courriel de tour de la partie { $game } (siège { $seat }, version { $version }).
move-answer-tries-left = Votre coup n'a pas été joué ; répondez de nouveau au courriel de tour (encore { $left } essais avec cette adresse).
