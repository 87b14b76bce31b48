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
mail-subject-game = [Djambi] { $what } : { $players }
mail-subject-plain = [Djambi] { $what }
mail-intro-game = { $what }.
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
mail-line-by-mail = Coups conditionnels par mail : répondez à { $address } avec une ligne en première ligne, comme if B G8-E6 Y H3-F5 G C2-D3 then C7-D7 (les coups attendus des adversaires, puis votre réponse).
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
mail-reset-ask = Quelqu'un (vous, espérons-le) a demandé à réinitialiser le mot de passe du compte Djambi { $name }. Ce lien sert une fois, pendant une heure :
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
confirm-done = Votre adresse { $email } est confirmée : les mails de notification et les coups par mail fonctionnent désormais.
confirm-open = Ouvrir Djambi
confirm-invalid = Ce lien ne fonctionne pas : inconnu, déjà utilisé ou expiré, ou l'adresse du compte a changé depuis. Demandez un nouveau mail depuis la page des réglages.

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
move-answer-illegal = « { $line } » n'est pas légal ici : { $detail }.
move-answer-to-move = Au trait : { $seat }
move-answer-to-move-deadline = Au trait : { $seat }, échéance { $deadline }
move-answer-status = État : { $status }
move-answer-board = Plateau : { $url }
move-answer-game = Partie : { $url }
move-answer-piece-moves = Coups légaux de la pièce en { $square } : { $moves }
move-answer-piece-stuck = La pièce en { $square } ne peut pas bouger (ou n'est pas à vous). Vous avez { $count } coups légaux ; voyez-les sur la page de la partie.
move-answer-all-moves = Coups légaux : { $moves }
move-answer-footer = Ceci répond à votre courriel { $message } au courriel de tour de la partie { $game } (siège { $seat }, version { $version }).
move-answer-effects = Ce qui s'est passé : { $effects }
move-answer-turn-stays = C'est toujours à vous de jouer : répondez de nouveau au même courriel de tour avec votre coup.
move-answer-too-long = La première ligne dépasse { $max } caractères.
move-answer-not-a-command = « { $line } » n'est ni un coup (comme C8-D7) ni resign, draw offer, draw accept, draw decline.
move-answer-not-your-turn = Ce n'est pas à vous de jouer.
move-answer-seat-out = Votre place est hors du jeu.
move-answer-draw-pending = Une proposition de nulle est déjà en cours : acceptez-la ou refusez-la.
move-answer-no-draw-offer = Aucune nulle n'est proposée.
move-answer-draw-already-accepted = Vous avez déjà accepté cette nulle.
move-answer-refused = La partie ne le permet pas maintenant.
move-answer-tries-left = Votre coup n'a pas été joué ; répondez de nouveau au courriel de tour ({ $left ->
    [one] encore { $left } essai
   *[other] encore { $left } essais
} avec cette adresse).
move-error-game-over = la partie est terminée
move-error-empty-square = { $square } est vide
move-error-not-your-piece = la pièce en { $square } n'est pas à { $seat } de jouer
move-error-unreachable = la pièce en { $from } ne peut pas atteindre { $to } ni y agir
move-error-missing-placement = ce coup doit dire où va le { $what } (>case)
move-error-forbidden-placement = le { $what } ne peut pas être posé en { $square }
move-error-unexpected-placement = ce coup ne pose rien : pas de >case
move-error-missing-exit = une pièce qui entre dans le labyrinthe pour agir doit en sortir (/case)
move-error-forbidden-exit = la pièce ne peut pas sortir du labyrinthe en { $square }
move-error-unexpected-exit = seul un coup qui entre dans le labyrinthe pour agir a une sortie
move-error-forbidden-victim = le reporter ne peut pas tuer en { $square }
move-error-unexpected-victim = seul un reporter désigne une victime
move-error-missing-victim = le reporter doit tuer une pièce voisine de { $square } (xcase)
move-error-what-corpse = cadavre
move-error-what-lifted-piece = pièce soulevée
effect-piece = { $kind } { $seat }
effect-corpse = { $kind } { $seat } mort
effect-moved = { $piece } { $from }-{ $to }
effect-killed = { $piece } tué en { $square }
effect-placed = { $piece } déplacé de { $from } en { $to }
effect-surrounded = { $piece } encerclé en { $square } et mort
effect-control-seat = les pièces { $party } passent à { $seat }
effect-control-hostage = les pièces { $party } sont désormais otages
effect-control-orphaned = les pièces { $party } sont désormais orphelines
effect-eliminated = { $seat } est hors du jeu
effect-passed = { $seat } n'a aucun coup légal et passe
result-win = { $seats } gagne ({ $reason })
result-draw = nulle entre { $seats } ({ $reason })
result-reason-last-seat-standing = dernière place en jeu
result-reason-resignation = par abandon
result-reason-mutual-elimination = élimination mutuelle
result-reason-no-legal-moves = plus aucun coup légal
result-reason-draw-agreed = nulle acceptée
result-reason-timeout = au temps
# Conditional moves (api/src/games/conditional.rs).
mail-kind-conditional_played = Votre coup conditionnel a été joué
mail-kind-conditional_discarded = Vos coups conditionnels ont été abandonnés
move-answer-conditional-stored = Coups conditionnels enregistrés : { $line }
move-answer-conditional-refused = Vos coups conditionnels n'ont pas été enregistrés : { $detail }
move-answer-conditional-since = La partie a avancé depuis le mail auquel vous répondez : la ligne est comparée aux coups joués depuis, et vous serez prévenu de ce qu'elle devient.
move-answer-reply-line = Pour enregistrer des coups conditionnels, répondez à ce mail avec une ligne en première ligne, comme if B G8-E6 Y H3-F5 G C2-D3 then C7-D7 (les coups attendus des adversaires, puis votre réponse).
move-answer-title-conditional = Coups conditionnels
move-answer-conditional-move-first = « { $line } » ne contient que des coups conditionnels, mais c'est à vous de jouer : une réponse à un courriel de tour commence par votre coup. Écrivez d'abord votre coup, puis la ligne, comme C8-D7 if B G8-E6 Y H3-F5 G C2-D3 then C7-D7 (cela joue C8-D7, puis enregistre la ligne à partir du tour suivant). Rien n'a été joué ni enregistré.
# Les notifications d'un tournoi (api/src/tournaments/notify.rs, composées dans email.rs).
mail-kind-tournament_started = Le tournoi a commencé
mail-kind-tournament_round = Votre prochaine ronde est appariée
mail-kind-tournament_finished = Le tournoi est terminé
mail-kind-tournament_cancelled = Le tournoi est annulé
mail-subject-tournament = [Djambi] { $what } : { $name }
mail-tournament-intro = { $what } : { $name }.
mail-tournament-started = La première ronde est appariée ; le mail de votre ronde indique votre partie.
mail-tournament-round = Ronde { $round } : vous jouez { $seat }.
mail-tournament-place = Vous terminez { $place ->
    [1] 1er
   *[other] { $place }e
} avec { $points } { $points ->
    [one] point
   *[other] points
}.
mail-tournament-place-of = Vous terminez { $place ->
    [1] 1er
   *[other] { $place }e
} sur { $players } avec { $points } { $points ->
    [one] point
   *[other] points
}.
mail-tournament-cancelled-organiser = l'organisateur l'a annulé
mail-tournament-cancelled-too_few_players = trop peu de joueurs inscrits
mail-open-tournament = Le tournoi : { $url }
# Les notifications Web Push (api/src/notifications/push.rs) : un titre par sorte, un texte court.
push-title-your_turn = À vous de jouer
push-title-reminder = Votre délai approche
push-title-timeout = Une place a dépassé son temps
push-title-chief_killed = Votre chef a été tué
push-title-seat_eliminated = Vous avez été éliminé
push-title-game_started = La partie a commencé
push-title-game_ended = La partie est terminée
push-title-draw_offered = Une nulle est proposée
push-title-message = Un nouveau message
push-title-webhook_disabled = Un webhook a été désactivé
push-title-conditional_played = Votre coup conditionnel a été joué
push-title-conditional_discarded = Vos coups conditionnels ont été abandonnés
push-title-tournament_started = Le tournoi a commencé
push-title-tournament_round = Votre prochaine ronde est appariée
push-title-tournament_finished = Le tournoi est terminé
push-title-tournament_cancelled = Le tournoi est annulé
push-title-other = Des nouvelles de Djambi
push-body-game = Partie { $game }
push-body-tournament-round = { $name } : ronde { $round }
push-body-tournament-place = { $name } : vous terminez { $place ->
    [1] 1er
   *[other] { $place }e
}
