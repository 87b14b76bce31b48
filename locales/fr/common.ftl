# Dates, heures et durées (api/src/i18n/time.rs).
datetime = { $weekday } { $day } { $month } { $year } à { $time } { $zone }
date = { $day } { $month } { $year }
weekday-1 = lundi
weekday-2 = mardi
weekday-3 = mercredi
weekday-4 = jeudi
weekday-5 = vendredi
weekday-6 = samedi
weekday-7 = dimanche
month-1 = janvier
month-2 = février
month-3 = mars
month-4 = avril
month-5 = mai
month-6 = juin
month-7 = juillet
month-8 = août
month-9 = septembre
month-10 = octobre
month-11 = novembre
month-12 = décembre
duration-days = { $n ->
    [one] { $n } jour
   *[other] { $n } jours
}
duration-hours = { $n ->
    [one] { $n } heure
   *[other] { $n } heures
}
duration-minutes = { $n ->
    [one] { $n } minute
   *[other] { $n } minutes
}
duration-less-than-a-minute = moins d'une minute
language-en = anglais
language-fr = français
language-es = espagnol
# Un nombre décimal (Fluent écrit le séparateur : « 25,00 »).
number = { $n }
