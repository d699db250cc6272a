# Die Seiten des Shops: Rahmen, Katalog, Tarifseite, Probleme beim Kauf, Hilfe und Fehler.
# Meldungen, die auf -html enden, enthalten eigenes Markup; ihre Argumente werden maskiert.

## Rahmen

skip-to-content = Zum Inhalt springen
nav-main = Hauptmenü
nav-countries = Länder
nav-regions = Regionen
nav-help = Hilfe
nav-help-pages = Hilfe
nav-language = Sprache
footer-contact-html = Fragen zu einer Bestellung? Schreib uns an <a href="mailto:{ $address }">{ $address }</a> oder antworte auf eine E-Mail zu deiner Bestellung.
footer-phone = Telefon:
footer-prices = Die Preise sind in US-Dollar und können sich bis zur Zahlung ändern.

## Zahlen und Tarife

days = { $n ->
    [one] { $n } Tag
   *[other] { $n } Tage
}
allowance = { $data } für { $days }
allowance-daily = { $data } pro Tag für { $days }
per-day = { $amount }/Tag
price-total-for = insgesamt für { $days }
data-in-total = { $data } insgesamt
countries-count = { $count ->
    [one] { $count } Land
   *[other] { $count } Länder
}
kind-local = Lokal
kind-regional = Regional
kind-global = Global
destination-global = Weltweit
activation-first-install = Die Gültigkeit beginnt, wenn du die eSIM installierst.
activation-first-network = Die Gültigkeit beginnt, wenn sich die eSIM zum ersten Mal mit einem Netz im Reiseland verbindet.
activation-unknown = Wann die Gültigkeit beginnt, wurde nicht angegeben. Frag uns vor dem Kauf.
activation-short-first-install = Beginnt bei Installation
activation-short-first-network = Beginnt bei erster Verbindung

## Listen

catalog-loading = Unser Tarifkatalog wird gerade geladen. Bitte schau in einer Minute noch einmal vorbei.
dest-covering-from = Regionale und globale Tarife ab { $price }
dest-covering = Regionale und globale Tarife
dest-plans-from = { $count ->
    [one] { $count } Tarif
   *[other] { $count } Tarife
} ab { $price }
dest-plans = { $count ->
    [one] { $count } Tarif
   *[other] { $count } Tarife
}
region-countries-from = { $countries } · ab { $price }
local-plans-none = keine lokalen Tarife
local-plans-from = { $count ->
    [one] { $count } lokaler Tarif
   *[other] { $count } lokale Tarife
} ab { $price }
local-plans = { $count ->
    [one] { $count } lokaler Tarif
   *[other] { $count } lokale Tarife
}
list-sort-by = Sortieren nach
list-duration = Laufzeit
list-apply = Anwenden
list-all-durations = Alle Laufzeiten zeigen
sort-price = Niedrigster Preis
sort-data = Meiste Daten
sort-validity = Längste Gültigkeit
any-duration = Beliebige Laufzeit
esim-for = eSIM für { $name }
plans-heading-for = eSIM-Datentarife für { $name }
countries-covered = Abgedeckte Länder

## Startseite und Suche

home-title = eSIM-Datentarife für Reisende
home-heading = Mobile Daten für deine Reise, in Minuten installiert
home-lead = Wähle dein Reiseziel, bezahle und erhalte deine eSIM per E-Mail. Keine Roaming-Rechnungen, keine Plastik-SIM.
home-popular = Beliebte Reiseziele
home-several-countries = Du reist in mehrere Länder?
home-how = So funktioniert es
home-step-check-html = Prüfe, ob dein Handy <a href="/help/compatibility">eSIM unterstützt und keinen SIM-Lock hat</a>.
home-step-pay = Wähle einen Tarif und bezahle. Wir schicken dir per E-Mail einen privaten Link zu deiner eSIM.
home-step-scan-html = Scanne den QR-Code auf deiner Bestellseite (manche eSIMs haben auch eine Installationsschaltfläche). <a href="/help/installation">Zu den Schritten</a>.
search-label = Wohin reist du?
search-placeholder = Ländername oder -code, z. B. Japan oder JP
search-button = Suchen
search-title = Suche: { $query }
search-heading = Finde dein Reiseziel
search-no-match-html = Kein Reiseziel passt zu „{ $query }“. Versuch es mit einer anderen Schreibweise des Landesnamens oder seinem zweistelligen Code, oder <a href="/countries">sieh dir alle Länder an</a>.
search-results = { $count ->
    [one] { $count } Reiseziel
   *[other] { $count } Reiseziele
} für „{ $query }“
search-regional-plans = Regionale Tarife · { $detail }

## Länder und Regionen

countries-title = Alle Länder
country-local-heading = Tarife für { $name }
country-no-local = Für { $name } gibt es keine lokalen Tarife; die regionalen und globalen Tarife unten decken es ab.
country-no-local-duration = Kein lokaler Tarif hat diese Laufzeit.
country-covering-heading = Regionale und globale Tarife mit { $name }
country-no-covering-duration = Kein regionaler oder globaler Tarif hat diese Laufzeit.
country-no-covering = Zurzeit deckt kein regionaler oder globaler Tarif { $name } ab.
regions-title = Regionale und globale Tarife
regions-lead = Eine eSIM für mehrere Länder.
regions-none = Zurzeit sind keine regionalen Tarife verfügbar.
region-lead = Eine eSIM für die ganze Region. Deckt { $count ->
    [one] { $count } Land
   *[other] { $count } Länder
} ab.
region-plans-heading = Regionale Tarife für { $name }
region-no-plans-duration = Kein regionaler Tarif hat diese Laufzeit.
region-no-plans = Zurzeit ist kein regionaler Tarif für { $name } im Angebot. Die Länder unten haben vielleicht eigene Tarife.
region-one-country = Du bleibst in einem Land? Seine Seite zeigt die Tarife nur für dieses Land.

## Die Tarifseite

plan-lead-local = Lokale eSIM für { $name }
plan-lead-regional = Regionale eSIM für { $name }. Deckt { $count ->
    [one] { $count } Land
   *[other] { $count } Länder
} ab.
plan-lead-global = Globale eSIM. Deckt { $count ->
    [one] { $count } Land
   *[other] { $count } Länder
} ab.
temporarily-unavailable = Vorübergehend nicht verfügbar
plan-buy = Diese eSIM kaufen
plan-price = Preis
plan-price-terms = USD, einmalig. Der Preis kann sich bis zur Zahlung ändern.
plan-price-terms-daily = USD, einmalig, { $note } ({ $per_day }). Der Preis kann sich bis zur Zahlung ändern.
plan-paused = Diese eSIM ist vorübergehend nicht verfügbar: Wir nehmen gerade keine neuen Bestellungen an. Es kann nichts berechnet werden. Bitte schau später wieder vorbei.
form-problem = Es gibt ein Problem
form-problems = { $count ->
    [one] Es gibt ein Problem
   *[other] Es gibt { $count } Probleme
}
form-error-prefix = Fehler:
plan-email-label = E-Mail für deine eSIM
plan-email-hint = An diese Adresse schicken wir den Link zu deiner eSIM. Prüfe sie genau.
plan-confirm-device-html = Mein Handy unterstützt eSIM und hat keinen SIM-Lock (<a href="/help/compatibility">so prüfst du das</a>)
plan-continue = Weiter zur Zahlung · { $price }
plan-not-online = Dieser Tarif kann nicht online gekauft werden.
plan-not-on-sale = Dieser Tarif ist nicht im Angebot. Er kann hier nicht gekauft werden.
plan-details = Tarifdetails
plan-data = Daten
plan-daily-renews = das Volumen erneuert sich jeden Tag; ungenutzte Daten verfallen
plan-validity = Gültigkeit
plan-fair-use = Fair Use
plan-network-type = Netztyp
plan-networks = Netze
plan-check-phone-html = Prüfe vor dem Kauf, ob <a href="/help/compatibility">dein Handy eSIM unterstützt und keinen SIM-Lock hat</a>.

## Kauf

form-expired = Dieses Formular ist abgelaufen. Geh zurück, lade die Seite neu und versuch es noch einmal.
checkout-too-many = Zu viele Kaufversuche von deiner Verbindung. Warte eine Minute und sende das Formular dann erneut.
checkout-email-invalid = Gib die E-Mail-Adresse ein, an die wir deine eSIM schicken sollen, z. B. name@example.com.
checkout-email-suggestion = Meintest du { $email }?
checkout-email-use = { $email } verwenden
checkout-email-keep = Oder behalte { $email }: mach mit der Schaltfläche unten weiter.
checkout-confirm-device = Bestätige, dass dein Handy eSIM unterstützt und keinen SIM-Lock hat.
checkout-price-not-number = Der Preis im Formular ist keine Zahl.
problem-gone-title = Dieser Tarif ist nicht mehr verfügbar
problem-gone = Unser Anbieter hat den Verkauf dieses Tarifs gerade eingestellt. Es wurde nichts berechnet. Diese Tarife decken dasselbe Reiseziel ab:
problem-price-title = Der Preis hat sich geändert
problem-price = Dieser Tarif kostet jetzt { $price }. Es wurde nichts berechnet. Fahre fort, wenn du ihn trotzdem möchtest.
problem-not-sellable-title = Dieser Tarif kann nicht online gekauft werden
problem-not-sellable = Dieser Tarif kann gerade nicht online bezahlt werden. Es wurde nichts berechnet.
problem-wallet-short = Wir können diesen Tarif gerade nicht verkaufen. Es wurde nichts berechnet. Bitte versuch es später noch einmal.
problem-sales-held = Wir nehmen gerade keine Bestellungen an, während wir unser Konto beim Anbieter bestätigen. Es wurde nichts berechnet. Bitte versuch es in ein paar Minuten noch einmal.
problem-continue-at = Weiter für { $price }
problem-back-to-plan = Zurück zum Tarif
problem-all-plans-for = Alle Tarife für { $name }

## Hilfe

help-compatibility-title = Unterstützt mein Handy eSIM?
help-installation-title = So funktioniert die Installation
help-refunds-title = So funktionieren Erstattungen
help-write-to-html = Schreib uns vor dem Kauf an <a href="mailto:{ $address }">{ $address }</a> oder frag den Hersteller deines Handys.
compat-intro-html = Eine eSIM funktioniert nur auf einem Handy, das eSIM unterstützt <strong>und</strong> nicht an einen Mobilfunkanbieter gebunden ist. Prüfe beides vor dem Kauf: Eine installierte eSIM lässt sich nicht auf ein anderes Handy übertragen.
compat-iphone-1-html = Öffne <strong>Einstellungen → Allgemein → Info</strong>.
compat-iphone-2-html = Suche nach <strong>Digitale SIM</strong> oder <strong>Verfügbare SIM</strong>: Wenn es dort steht, unterstützt dein iPhone eSIM (iPhone XS, XR und neuer).
compat-iphone-3-html = Unter <strong>Netzbetreibersperre</strong> muss <strong>Keine SIM-Beschränkungen</strong> stehen.
compat-android-1-html = Öffne <strong>Einstellungen → Netzwerk &amp; Internet → SIMs</strong> (bei Samsung <strong>Verbindungen → SIM-Manager</strong>).
compat-android-2-html = Wenn du <strong>eSIM hinzufügen</strong> oder <strong>Stattdessen SIM herunterladen</strong> siehst, unterstützt dein Handy eSIM.
compat-android-3-html = Wähle <code>*#06#</code>: Eine Zeile mit <strong>EID</strong> bedeutet ebenfalls eSIM-Unterstützung.
compat-android-4 = Um den SIM-Lock zu prüfen, leg eine SIM-Karte eines anderen Anbieters ein oder frag den Anbieter, bei dem du das Handy gekauft hast.
compat-unsure = Immer noch unsicher?
compat-ask-maker = Frag vor dem Kauf den Hersteller deines Handys oder den Anbieter, bei dem du es gekauft hast.
compat-contract-locked = Handys, die mit Vertrag bei einem Anbieter gekauft wurden, sind oft gesperrt.
install-step-1 = Nach der Zahlung schicken wir dir per E-Mail einen privaten Link. Behalte ihn für dich: Er zeigt deine eSIM.
install-step-2 = Wann du installierst, hängt vom Tarif ab. Beginnt die Gültigkeit mit der Installation, installiere die eSIM bei der Ankunft oder kurz bevor du sie brauchst. Beginnt sie, wenn sich die eSIM zum ersten Mal mit einem Netz im Reiseland verbindet, kannst du sie schon vor der Reise installieren, solange du WLAN hast. Die Tarifseite und deine Bestellseite sagen dir, was gilt.
install-step-3 = Öffne den Link auf einem zweiten Bildschirm und scanne den QR-Code mit der Kamera deines Handys. Manche eSIMs haben auch eine Installationsschaltfläche: Wenn deine Seite eine zeigt, kannst du den Link auf dem Handy selbst öffnen und darauf tippen. Klappt beides nicht, gib die SM-DP+-Adresse und den Aktivierungscode von Hand ein.
install-step-4 = Schalte die eSIM bei der Ankunft für mobile Daten ein und aktiviere Daten-Roaming für diese Leitung.
lost-email-html = E-Mail mit deinem Link verloren? <a href="/lost-link">Lass dir die Links zu deinen Bestellungen schicken</a>.
install-do-not-delete-html = <strong>Lösch die eSIM nicht</strong> von deinem Handy, bevor du sie nicht mehr brauchst: Einmal gelöscht, lässt sie sich meist nicht erneut installieren.
refunds-intro = Wir kaufen deine eSIM erst bei unserem Anbieter, wenn deine Zahlung bestätigt ist. Was passiert, wenn dabei etwas schiefgeht:
refunds-not-issued-html = <strong>Der Anbieter meldet, dass deine eSIM nicht ausgestellt werden konnte.</strong> Du bekommst automatisch den vollen Betrag auf dein ursprüngliches Zahlungsmittel erstattet und eine E-Mail dazu.
refunds-refused-html = <strong>Der Anbieter lehnt die Bestellung ab</strong> (zum Beispiel, weil der Tarif kurz vorher zurückgezogen wurde).
refunds-refused-auto = Du bekommst automatisch den vollen Betrag erstattet.
refunds-refused-manual = Wir sehen uns die Bestellung an und erstatten dir den vollen Betrag.
refunds-unavailable-html = <strong>Unser Anbieter ist kurz nicht erreichbar, oder unser Konto dort braucht Aufmerksamkeit.</strong> Deine Bestellung wartet und wird abgeschlossen, sobald es geht; du zahlst nicht doppelt und bekommst nie zwei eSIMs. Wenn wir nicht warten wollen, erstatten wir dir den vollen Betrag.
refunds-every-email = Jede Erstattungs-E-Mail sagt, welcher dieser Fälle eingetreten ist. Eine Erstattung geht auf die Karte oder das Konto, mit dem du bezahlt hast; je nach Bank kann es 5 bis 10 Werktage dauern, bis sie erscheint.
refunds-broken-write-html = Wenn deine eSIM geliefert wurde, aber nicht funktioniert, schreib uns an <a href="mailto:{ $address }">{ $address }</a> (oder antworte auf deine Bestell-E-Mail) mit dem privaten Link aus dieser E-Mail, bevor du die eSIM löschst, und wir gehen der Sache nach.
refunds-broken-keep = Wenn deine eSIM geliefert wurde, aber nicht funktioniert, lösch sie nicht und bewahre den privaten Link aus deiner E-Mail auf: Über ihn wird deine Bestellung gefunden.
refunds-installed = Eine eSIM, die installiert oder genutzt wurde, kann nicht erstattet werden.

## Link verloren?

lost-link-title = Link verloren?
lost-link-sent = Wenn mit dieser E-Mail-Adresse Bestellungen bezahlt wurden, schicken wir ihr jetzt die privaten Links dazu. Das kann ein paar Minuten dauern; sieh auch im Spam-Ordner nach.
lost-link-sent-limit = Wir schicken diese E-Mail höchstens einmal alle 15 Minuten an eine Adresse, mit neuen Links zu deinen letzten Bestellungen. Die Links in deinen früheren E-Mails funktionieren weiter, außer der Shop hat sie beendet.
lost-link-sent-retry-html = Nichts angekommen? Prüfe, ob du die Adresse eingegeben hast, die du beim Kauf verwendet hast, und <a href="/lost-link">versuch es</a> etwas später noch einmal.
lost-link-intro = Deine Bestellseite öffnet sich über den privaten Link in den E-Mails, die wir dir zu deiner Bestellung geschickt haben. Gib die E-Mail-Adresse ein, die du beim Kauf verwendet hast, und wir schicken dir neue Links zu deinen Bestellungen.
lost-link-email-label = E-Mail-Adresse vom Kauf
lost-link-email-hint = Wir schreiben nur an diese Adresse, und nur, wenn sie Bestellungen bei uns hat.
lost-link-submit = Links zu meinen Bestellungen schicken
lost-link-too-many = Zu viele Anfragen von deiner Verbindung. Warte 15 Minuten und sende das Formular dann erneut.
lost-link-email-invalid = Gib die E-Mail-Adresse ein, die du beim Kauf verwendet hast, z. B. name@example.com.

## Fehler

error-not-found-title = Seite nicht gefunden
error-not-found = Unter dieser Adresse gibt es nichts. Prüfe den Link oder fang auf der Startseite neu an.
error-order-not-found-title = Öffne deine Bestellung aus deiner E-Mail
error-order-not-found = Deine Bestellseite öffnet sich über den privaten Link in den E-Mails, die wir dir zu deiner Bestellung schicken („Bestellung ansehen“ oder „eSIM installieren“). Auf einem anderen Gerät, etwa einem Computer, von dem du den QR-Code scannen willst, öffne diese E-Mail dort und nutze ihren Link. Die E-Mails kommen von diesem Shop, sobald deine Zahlung bestätigt ist; wenn du keine findest, sieh im Spam-Ordner nach. Links funktionieren einige Zeit nach Abschluss einer Bestellung nicht mehr, oder früher, wenn der Shop sie zu deiner Sicherheit beendet: Fordere unten neue Links per E-Mail an.
error-bad-request-title = Das hat nicht geklappt
error-forbidden-title = Nicht erlaubt
error-unauthorized = Diese Adresse braucht das Zugriffstoken des Betreibers.
error-conflict-title = Das geht gerade nicht
error-too-many-title = Zu viele Anfragen
error-too-many = Bitte warte einen Moment und versuch es noch einmal.
error-unavailable = Der Shop kann gerade nicht antworten. Bitte versuch es in einer Minute noch einmal.
error-internal-title = Etwas ist schiefgelaufen
error-internal = Ein unerwarteter Fehler hat diese Anfrage gestoppt. Er wurde protokolliert; nenn die Anfrage-ID, wenn du uns kontaktierst.
error-unstorable-text = Ein Teil der gesendeten Angaben enthält ein Zeichen, das nicht verwendet werden kann (ein Nullzeichen). Entferne es und versuch es noch einmal.
error-bad-input = Ein Teil der gesendeten Angaben war ungültig. Geh zurück und versuch es noch einmal.
error-lost-link = Link verloren? Per E-Mail anfordern
error-home = Zur Startseite
error-code = Fehler { $status }
error-request-id = Anfrage-ID

## Promotion codes and display currencies
promo-field-label = Aktionscode (optional)
promo-bad-format = Ein Aktionscode besteht aus 3 bis 32 Buchstaben und Ziffern. Prüfe ihn oder lass das Feld leer.
promo-unknown = Diesen Aktionscode gibt es nicht oder er wird nicht mehr angeboten.
promo-not-yet = Dieser Aktionscode ist noch nicht gültig.
promo-expired = Dieser Aktionscode ist abgelaufen.
promo-other-plans = Dieser Aktionscode gilt nicht für diesen Tarif.
promo-used-up = Dieser Aktionscode ist bereits aufgebraucht.
promo-not-for-this-order = Dieser Aktionscode kann für diese Bestellung nicht verwendet werden.
promo-held = Andere unbezahlte Bestellungen von deiner Verbindung halten diesen Aktionscode bereits. Bezahle eine davon oder versuche es in 30 Minuten erneut.
promo-problem-title = Dieser Aktionscode kann nicht verwendet werden
promo-problem = { $reason } Es wurde nichts berechnet.
checkout-description-promo = { $plan } · Aktionscode { $code }
# A price in another currency, shown beside the US dollar price only (never charged).
display-price = ≈ { $amount }
display-price-rate-of = Kurs vom { $date }

## Plan choice: sections of a plan list, day pickers, breadcrumbs, the global plans
section-daily = Tagespläne ({ $count })
section-total = Pläne mit Gesamtvolumen ({ $count })
section-regional = Regionale Pläne ({ $count })
section-global = Weltweite Pläne ({ $count })
list-show-more = { $count } weitere anzeigen
choose-days = Tage
choose-submit = Diesen Plan ansehen
plan-durations = Andere Laufzeiten
crumb-home = Startseite
crumb-label = Brotkrümelnavigation
global-title = Weltweite Pläne
global-lead = Eine eSIM für Reisen rund um die Welt.
global-none = Zurzeit ist kein weltweiter Plan im Angebot.
regions-global-link = Weltweite Pläne: eine eSIM für die ganze Welt

# What search results show of a page (its <meta name="description">) and a plan page's title.
meta-description = eSIM-Datentarife für Reisende: online kaufen, die eSIM in wenigen Minuten per E-Mail erhalten, per QR-Code oder mit einem Tipp installieren.
plan-description = eSIM für { $name }: { $allowance }, { $price }. In wenigen Minuten per E-Mail; Installation per QR-Code oder mit einem Tipp.
plan-search-title = eSIM für { $name } — { $allowance }, { $price }
# The price line of a country's or region's share card (the picture of a shared link).
share-card-from = Ab { $price }
listing-description = eSIM-Tarife für { $name }: { $count ->
    [one] 1 Tarif
   *[other] { $count } Tarife
} ab { $price }. In wenigen Minuten per E-Mail; Installation per QR-Code oder mit einem Tipp.

## Legal pages: the footer's links and the page around the owner's text
nav-legal = Rechtliches
legal-terms-title = AGB
legal-privacy-title = Datenschutzerklärung
legal-refunds-title = Widerruf und Erstattung
legal-imprint-title = Impressum
legal-draft-banner = Entwurf: Der Shop-Betreiber hat diesen Text noch nicht geprüft.
legal-updated = Zuletzt geändert am { $date }.
refunds-policy-link-html = Die verbindlichen Regeln, auch zu Ihrem Widerrufsrecht, stehen in unserer <a href="/refunds-and-withdrawal">Widerrufs- und Erstattungsbelehrung</a>.

## Checkout: consent to the terms and the withdrawal notice for digital content
checkout-accept-terms-html = Ich stimme den <a href="/terms">AGB</a> zu.
checkout-withdrawal-notice = Eine eSIM ist ein digitaler Inhalt: Sie verlieren Ihr Widerrufsrecht, sobald sie geliefert ist.
checkout-accept-terms = Stimmen Sie den AGB zu, um fortzufahren.

my-esims-title = Meine eSIMs
my-esims-signed-in = Angemeldet als { $email }.
my-esims-none = Mit dieser E-Mail-Adresse wurden noch keine eSIMs gekauft.
my-esims-order-number = Bestellnummer
my-esims-bought = Gekauft am
my-esims-open = Bestellung öffnen und installieren
my-esims-pages = Weitere eSIMs
my-esims-newest = Neueste eSIMs
my-esims-older = Ältere eSIMs
my-esims-sign-out = Abmelden
my-esims-sign-out-everywhere = Überall abmelden
my-esims-sign-out-everywhere-hint = Meldet jeden Browser und jedes Telefon ab, auf dem du dich mit dieser E-Mail-Adresse angemeldet hast.
my-esims-link-used = Dieser Anmeldelink funktioniert nicht mehr: Jeder Link funktioniert einmal, 30 Minuten lang. Gib deine E-Mail-Adresse ein, und wir senden dir einen neuen.
my-esims-sign-in-intro = Melde dich auf diesem Gerät an, um alle eSIMs zu sehen, die mit deiner E-Mail-Adresse gekauft wurden.
my-esims-sign-in = Bei Meine eSIMs anmelden
lost-link-my-esims = Die E-Mail enthält auch einen Link, der dich bei „Meine eSIMs“ anmeldet, wo alle deine eSIMs aufgelistet sind.
checkout-quantity-label = Anzahl der eSIMs
checkout-quantity-not-number = Wähle die Anzahl der eSIMs aus der Liste.
checkout-quantity-range = Wähle zwischen 1 und { $max } eSIMs.
checkout-total = Gesamt:
checkout-travellers-label = Für wen ist welche eSIM? (optional)
checkout-travellers-hint = Ein Name unterscheidet die eSIMs auf deiner Bestellseite. Reisende mit E-Mail-Adresse bekommen einen eigenen Link zum Installieren ihrer eSIM. Zeilen über die Anzahl der eSIMs hinaus werden nicht berücksichtigt.
checkout-traveller-legend = eSIM { $n }
checkout-traveller-name = Name
checkout-traveller-email = E-Mail für den eigenen Link
checkout-traveller-name-invalid = Der Name für eSIM { $n } ist zu lang: höchstens { $max } Zeichen.
checkout-traveller-email-invalid = Die E-Mail-Adresse für eSIM { $n } ist ungültig, z. B. ben@example.com.
promo-too-many-esims = Dieser Aktionscode gilt für weniger eSIMs, als du gewählt hast. Wähle weniger eSIMs oder entferne den Code.
checkout-several-label = Mehrere eSIMs, eine pro Reisendem (optional)
