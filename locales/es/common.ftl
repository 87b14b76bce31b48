# Fechas, horas y duraciones (api/src/i18n/time.rs).
datetime = { $weekday } { $day } de { $month } de { $year }, { $time } { $zone }
date = { $day } de { $month } de { $year }
weekday-1 = lunes
weekday-2 = martes
weekday-3 = miércoles
weekday-4 = jueves
weekday-5 = viernes
weekday-6 = sábado
weekday-7 = domingo
month-1 = enero
month-2 = febrero
month-3 = marzo
month-4 = abril
month-5 = mayo
month-6 = junio
month-7 = julio
month-8 = agosto
month-9 = septiembre
month-10 = octubre
month-11 = noviembre
month-12 = diciembre
duration-days = { $n ->
    [one] { $n } día
   *[other] { $n } días
}
duration-hours = { $n ->
    [one] { $n } hora
   *[other] { $n } horas
}
duration-minutes = { $n ->
    [one] { $n } minuto
   *[other] { $n } minutos
}
duration-less-than-a-minute = menos de un minuto
language-en = inglés
language-fr = francés
language-es = español
# Un número decimal (Fluent escribe el separador: «25,00»).
number = { $n }
