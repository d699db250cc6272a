# Die private Bestellseite und die Demo-Zahlungsseite.

order-title = Bestellung { $number }
order-label = Bestellung
order-refresh = Status aktualisieren
order-try-again = Erneut versuchen
order-install-heading = Installiere deine eSIM
order-do-not-delete-html = <strong>Lösch diese eSIM nicht</strong> von deinem Handy, bevor deine Reise vorbei ist: Einmal gelöscht, lässt sie sich meist nicht erneut installieren.
order-on-device = Auf dem Handy, mit dem du reist
order-install-iphone = Auf dem iPhone installieren
order-install-phone = Auf diesem Handy installieren
order-install-hint-iphone = Tippe darauf auf dem iPhone, auf dem du die eSIM installierst. Sonst gib die Daten von Hand ein oder scanne den QR-Code von einem anderen Bildschirm.
order-install-hint-phone = Tippe darauf auf dem Handy, auf dem du die eSIM installierst. Sonst gib die Daten von Hand ein oder scanne den QR-Code von einem anderen Bildschirm.
order-by-hand = Von Hand eingeben
order-select-to-copy = Wähle einen Wert aus, um ihn zu kopieren.
order-copy = Kopieren
order-copy-label = { $label } kopieren
order-copied = { $label } kopiert.
order-activation-code = Aktivierungscode
order-two-parts = Manche Handys fragen die beiden Teile einzeln ab:
order-smdp-address = SM-DP+-Adresse
order-matching-id = Aktivierungscode (Matching-ID)
order-iphone-1-html = Öffne <strong>Einstellungen → Mobilfunk → eSIM hinzufügen</strong>.
order-iphone-2-html = Tippe auf <strong>Details manuell eingeben</strong> und gib die SM-DP+-Adresse und den Aktivierungscode ein, oder wähle <strong>QR-Code verwenden</strong> und scanne den QR-Code.
order-iphone-3 = Gib der neuen Leitung einen Namen (zum Beispiel „Reise“) und behalte deine gewohnte Leitung für Anrufe, wenn du möchtest.
order-android-1-html = Öffne <strong>Einstellungen → Netzwerk &amp; Internet → SIMs → eSIM hinzufügen</strong> (Samsung: <strong>Verbindungen → SIM-Manager → eSIM hinzufügen</strong>).
order-android-2-html = Wähle <strong>Aktivierungscode eingeben</strong> und füge den Code von oben ein, oder scanne den QR-Code.
order-other-screen = Von einem anderen Bildschirm
order-qr-label = QR-Code deiner eSIM
order-qr-caption = Öffne diese Seite auf einem Computer oder Tablet (oder drucke sie aus) und scanne den QR-Code mit der Kamera des Handys.
order-on-arrival = Schalte diese eSIM bei der Ankunft für mobile Daten ein und aktiviere Daten-Roaming für sie.
order-number = Bestellnummer
order-plan = Tarif
order-email = E-Mail
order-timeline = Verlauf
order-newest-first = Neueste zuerst.
order-keep-private = Halte den Link aus deiner E-Mail privat: Er öffnet diese Seite.

install-advice-first-install = Die Gültigkeit beginnt mit der Installation dieser eSIM. Installiere sie also bei der Ankunft oder kurz bevor du sie brauchst. Zum Installieren brauchst du WLAN oder eine andere Verbindung.
install-advice-first-network = Die Gültigkeit beginnt, wenn sich diese eSIM zum ersten Mal mit einem Netz an deinem Reiseziel verbindet. Du kannst sie also jetzt installieren, solange du WLAN hast, und sie wartet, bis du ankommst.
install-advice-unknown = Installiere sie kurz bevor du sie brauchst, solange du WLAN oder eine andere Verbindung hast: Bei manchen Tarifen beginnen die Tage mit der Installation zu zählen.

status-awaiting-payment = Deine Zahlung wird bestätigt …
status-awaiting-payment-text = Sobald dein Zahlungsanbieter die Zahlung bestätigt, bestellen wir deine eSIM.
status-paid = Zahlung erhalten
status-paid-text = Wir bestellen jetzt deine eSIM. Das dauert meist weniger als eine Minute; wir schicken dir eine E-Mail, wenn sie bereit ist.
status-preparing = Deine eSIM wird vorbereitet
status-preparing-text = Unser Anbieter bereitet deine eSIM vor. Wir schicken dir eine E-Mail, wenn sie bereit ist.
status-fulfilled = Deine eSIM ist bereit
status-fulfilled-text = Installiere sie auf dem Handy, mit dem du reist: Die Schritte stehen unten.
status-payment-failed = Zahlung nicht abgeschlossen
status-payment-failed-text = Deine Zahlung ist nicht durchgegangen oder die Zahlungsseite ist abgelaufen. Es wurde nichts berechnet. Du kannst es auf der Tarifseite noch einmal versuchen.
status-needs-attention = Wir sehen uns deine Bestellung an
status-needs-attention-text = Etwas muss bei uns genauer geprüft werden. Du musst nichts tun: Wir schreiben dir, sobald es geklärt ist.
status-failed = Wir konnten deine Bestellung nicht abschließen
status-failed-text = Unser Anbieter konnte diese eSIM nicht bereitstellen. Du bekommst deine Zahlung vollständig erstattet.
status-refunded = Erstattet
status-refunded-text = Deine Zahlung wurde vollständig auf dein ursprüngliches Zahlungsmittel erstattet.
status-updated = Aktualisiert

pay-title = Zahlung im TESTMODUS
pay-test-mode-html = <strong>TESTMODUS</strong> – Demo-Zahlungen: Keine Karte wird belastet und kein Geld bewegt.
pay-amount = { $amount } bezahlen
pay-for = Für
pay-amount-label = Betrag
pay-amount-usd = { $amount } (US-Dollar)
pay-decline = Zahlung ablehnen
pay-closed = Diese Zahlung ist nicht mehr offen.
pay-see-order = Zu deiner Bestellung
promo-code-label = Aktionscode
promo-pay-line = { $code }: { $discount } Rabatt auf { $list }
pay-units-line = { $count } eSIMs × { $price }
order-unit-label = eSIM { $index } von { $count }
order-units-heading = Deine { $count } eSIMs

# The departure day: the checkout's optional field and the order page's form.
trip-date-label = Wann reist du ab? (optional)
trip-date-hint = Am Morgen vor deiner Abreise erinnern wir dich per E-Mail an deine eSIM und daran, wann du sie installierst. Leer lassen für keine Erinnerung.
trip-date-invalid = Gib den Abreisetag als Datum ein, etwa 2026-12-24.
trip-date-past = Der Abreisetag darf nicht in der Vergangenheit liegen.
trip-date-too-far = Der Abreisetag darf höchstens ein Jahr in der Zukunft liegen.
order-trip-heading = Deine Reise
order-trip-none = Sag uns, wann du abreist, und wir erinnern dich am Tag davor per E-Mail an deine eSIM.
order-trip-on = Du reist am { $day } ab. Am Tag davor erinnern wir dich per E-Mail.
order-trip-add = Abreisedatum angeben
order-trip-change = Datum ändern oder löschen
trip-title = Wann reist du ab?
trip-intro = Am Morgen vor deiner Abreise erinnern wir dich per E-Mail an deine eSIM und daran, wann du sie installierst.
trip-save = Datum speichern
trip-remove = Datum löschen (keine Erinnerung)
trip-back = Zurück zur Bestellung

# Reminders of unfinished checkouts: the consent at checkout, the email, the unsubscribe page.
checkout-remind-unfinished = Erinnere mich per E-Mail, falls ich nicht abschließe
checkout-remind-unfinished-hint = Eine E-Mail eine Stunde nachdem die Zahlungsseite geschlossen wurde, nur wenn du nicht bezahlt hast. Höchstens eine pro Woche.
unsubscribe-title = Erinnerungen an nicht abgeschlossene Bestellungen
unsubscribe-intro = Drücke den Knopf, damit diese Adresse keine Erinnerungen an nicht abgeschlossene Bestellungen mehr bekommt. E-Mails zu bezahlten Bestellungen erreichen dich weiterhin.
unsubscribe-button = Abbestellen
unsubscribe-done = Erledigt: Diese Adresse bekommt keine Erinnerungen an nicht abgeschlossene Bestellungen mehr.

# Sending one eSIM of several to someone.
order-send-heading = Diese eSIM an jemanden senden
order-send-hint = Die Person bekommt eine E-Mail mit einem eigenen privaten Link, der nur diese eSIM öffnet.
order-send-email = E-Mail-Adresse der Person
order-send-button = Link senden
order-send-sent = Der Link zu dieser eSIM ist unterwegs an { $email }.
order-send-invalid = Gib eine E-Mail-Adresse wie name@example.com ein.
order-send-too-many = Von hier wurden zu viele Links gesendet. Bitte versuche es in 15 Minuten erneut.
order-send-not-ready = Diese eSIM ist noch nicht bereit: Du kannst sie senden, sobald sie es ist.
pay-billing-country = Land der Rechnungsadresse
pay-choose-country = Wähle dein Land
pay-continue = Weiter
pay-country-needed = Wähle zuerst das Land deiner Rechnungsadresse: Die Steuer hängt davon ab.
pay-before-tax = Preis ohne Steuer
pay-tax = Steuer { $rate }
pay-tax-none = Keine Steuer für dieses Land
pay-tax-included = Darin { $rate } Steuer
