# Die E-Mails an Kunden (die Warnungen an die Betreiber bleiben englisch und stehen nicht hier).

mail-button-fallback = Wenn die Schaltfläche nicht funktioniert, kopiere diese Adresse in deinen Browser:
mail-receipt-order = Bestellung
mail-receipt-ordered-on = Bestellt am
mail-receipt-promo = Aktionscode
mail-receipt-promo-line = { $code }, { $discount } Rabatt auf { $list }
mail-unknown-plan = eSIM-Tarif { $id }
mail-private-footer = Dieser Link ist privat: Wer ihn hat, kann deine Bestellung sehen. Bitte leite diese E-Mail nicht weiter. Nenn deine Bestellnummer { $number }, wenn du uns kontaktierst.

mail-paid-subject = Zahlung erhalten – { $shop }
mail-paid-preheader = Wir bereiten deine eSIM vor. Du bekommst eine weitere E-Mail, wenn sie bereit ist.
mail-paid-heading = Danke, deine Zahlung ist bestätigt
mail-paid-action = Bestellung ansehen
mail-paid-intro = Wir haben deine Zahlung von { $amount } für { $plan } erhalten.
mail-paid-intro-html = Wir haben deine Zahlung von <strong>{ $amount }</strong> für <strong>{ $plan }</strong> erhalten.
mail-paid-next = Wir bereiten jetzt deine eSIM vor. Das dauert meist ein paar Minuten; wir schreiben dir wieder, sobald sie installiert werden kann. Du kannst deine Bestellung jederzeit verfolgen:

mail-ready-subject = Deine eSIM ist bereit zur Installation – { $shop }
mail-ready-preheader = Öffne deine private Bestellseite, um sie zu installieren.
mail-ready-heading = Deine eSIM ist bereit zur Installation
mail-ready-action = eSIM installieren
mail-ready-intro = Deine eSIM für { $plan } ist bereit.
mail-ready-intro-html = Deine eSIM für <strong>{ $plan }</strong> ist bereit.
mail-units-plan = { $count } eSIMs · { $plan }
mail-ready-unit-intro = Deine eSIM für { $plan } ({ $unit }) ist bereit.
mail-ready-unit-intro-html = Deine eSIM für <strong>{ $plan }</strong> ({ $unit }) ist bereit.
mail-ready-open = Öffne deine private Bestellseite, um sie zu installieren. Dort steht, wann du sie bei diesem Tarif installieren solltest, und du findest die Daten für die Installation auf deinem Handy, einen QR-Code zum Scannen von einem anderen Bildschirm und eine Schritt-für-Schritt-Anleitung für iPhone und Android.
mail-ready-do-not-delete = Lösch diese eSIM nicht von deinem Handy, bevor deine Reise vorbei ist: Einmal gelöscht, lässt sie sich meist nicht erneut installieren.
mail-ready-footer = Bewahre diese E-Mail auf: Über den Link kommst du zurück zu deinen Installationsdaten. Er ist privat, bitte gib ihn nicht weiter. Nenn deine Bestellnummer { $number }, wenn du uns kontaktierst.

mail-refunded-subject = Deine Bestellung wurde erstattet – { $shop }
mail-refunded-preheader = Dein Geld ist auf dem Weg zurück zu dir.
mail-refunded-heading = Deine Bestellung wurde erstattet
mail-refunded-action = Bestellung ansehen
mail-refunded-intro = Wir haben dir { $amount } für { $plan } erstattet.
mail-refunded-intro-html = Wir haben dir <strong>{ $amount }</strong> für <strong>{ $plan }</strong> erstattet.
mail-refunded-unit = Diese Erstattung betrifft { $unit } deiner Bestellung; ihre anderen eSIMs sind davon nicht betroffen.
mail-refunded-reason = Grund: { $reason }
mail-refunded-when = Die Erstattung geht auf die Karte oder das Konto, mit dem du bezahlt hast. Je nach Bank kann es 5 bis 10 Werktage dauern, bis sie auf deinem Kontoauszug erscheint.
refund-reason-delivery-failed = wir konnten diese eSIM nicht liefern
refund-reason-on-request = der Shop hat diese Bestellung auf Anfrage erstattet
refund-reason-payment-problem = es gab ein Problem mit der Zahlung

mail-lost-subject = Die Links zu deinen Bestellungen – { $shop }
mail-lost-preheader = Die privaten Links zu deinen Bestellungen, wie angefordert.
mail-lost-heading = Die Links zu deinen Bestellungen
mail-lost-action = Letzte Bestellung ansehen
mail-lost-intro = Jemand (hoffentlich du) hat die Links zu den Bestellungen mit dieser E-Mail-Adresse angefordert. Hier sind sie, die neueste zuerst. Jeder Link öffnet die Seite der Bestellung, auf der du deine eSIM installieren oder ansehen kannst.
mail-lost-sign-in = Alle deine eSIMs an einem Ort findest du unter „Meine eSIMs“. Der Anmeldelink funktioniert einmal, innerhalb von 30 Minuten.
mail-lost-sign-in-link = Bei „Meine eSIMs“ anmelden
mail-lost-ignore = Wenn du diese E-Mail nicht angefordert hast, kannst du sie ignorieren: Die Links funktionieren nur für den, der diese E-Mail hat.
mail-lost-footer = Diese Links sind privat: Wer sie hat, kann deine Bestellungen sehen. Bitte leite diese E-Mail nicht weiter.

mail-traveller-subject = Deine eSIM ist bereit zur Installation – { $shop }
mail-traveller-preheader = Öffne deine private Seite, um sie zu installieren.
mail-traveller-heading = Für dich wurde eine eSIM gekauft
mail-traveller-action = eSIM installieren
mail-traveller-intro = Deine eSIM für { $plan } ({ $unit }) ist bereit.
mail-traveller-footer = Bewahre diese E-Mail auf: Über den Link kommst du zurück zu deinen Installationsdaten. Er ist privat und öffnet nur deine eSIM, bitte gib ihn nicht weiter. Nenn die Bestellnummer { $number }, wenn du uns kontaktierst.

# The trip reminder, the day before the departure day the buyer gave.
mail-trip-subject = Deine Reise am { $day }: deine eSIM – { $shop }
mail-trip-preheader = Deine eSIM für die Reise morgen und wann du sie installierst.
mail-trip-heading = Morgen geht deine Reise los
mail-trip-action = eSIM öffnen
mail-trip-purpose = Du wolltest am Tag vor deiner Abreise am { $day } an deine eSIM erinnert werden.
mail-trip-intro = Deine Bestellung: { $plan }.
mail-trip-footer = Du bekommst diese E-Mail, weil du für diese Bestellung dein Abreisedatum angegeben hast. Ohne Erinnerungen: Lösche das Datum auf deiner Bestellseite. Der Link ist privat, bitte gib ihn nicht weiter.

# Reminders of unfinished checkouts: the consent at checkout, the email, the unsubscribe page.
mail-unfinished-subject = Du hast deine Bestellung nicht abgeschlossen – { $shop }
mail-unfinished-preheader = Deine eSIM ist nur noch einen Schritt entfernt.
mail-unfinished-heading = Du hast deine Bestellung nicht abgeschlossen
mail-unfinished-action = Zurück zum Tarif
mail-unfinished-purpose = Du wolltest erinnert werden, falls du deine Bestellung nicht abschließt. Deine Zahlungsseite wurde ohne Zahlung geschlossen, es wurde nichts abgebucht.
mail-unfinished-intro = Der gewählte Tarif: { $plan }.
mail-unfinished-footer = Du bekommst diese E-Mail, weil du beim Bestellen „Erinnere mich per E-Mail, falls ich nicht abschließe“ angekreuzt hast. Wir senden höchstens eine pro Woche.
mail-unfinished-unsubscribe = Diese Erinnerungen abbestellen
