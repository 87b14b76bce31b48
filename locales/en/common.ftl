# Dates, times and durations (api/src/i18n/time.rs). Parts:
# $weekday, $day, $month, $year, $time (24 h, "14:05"), $zone ("CET", "UTC").
datetime = { $weekday } { $day } { $month } { $year }, { $time } { $zone }
date = { $day } { $month } { $year }
weekday-1 = Monday
weekday-2 = Tuesday
weekday-3 = Wednesday
weekday-4 = Thursday
weekday-5 = Friday
weekday-6 = Saturday
weekday-7 = Sunday
month-1 = January
month-2 = February
month-3 = March
month-4 = April
month-5 = May
month-6 = June
month-7 = July
month-8 = August
month-9 = September
month-10 = October
month-11 = November
month-12 = December
duration-days = { $n ->
    [one] { $n } day
   *[other] { $n } days
}
duration-hours = { $n ->
    [one] { $n } hour
   *[other] { $n } hours
}
duration-minutes = { $n ->
    [one] { $n } minute
   *[other] { $n } minutes
}
duration-less-than-a-minute = less than a minute
# The name of each language, in this language (the settings page's choice).
language-en = English
language-fr = French
language-es = Spanish
# A decimal number (Fluent writes its separator: "25.00", "25,00").
number = { $n }
