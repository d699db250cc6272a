# The shop's pages: frame, catalog, plan page, checkout problems, help and errors.
# Messages ending in -html hold markup of their own; their arguments are escaped.

## Frame

skip-to-content = Skip to content
nav-main = Main
nav-countries = Countries
nav-regions = Regions
nav-help = Help
nav-help-pages = Help
nav-language = Language
footer-contact-html = Questions about an order? Write to <a href="mailto:{ $address }">{ $address }</a>, or reply to any email about your order.
footer-phone = Phone:
footer-prices = Prices are in US dollars and can change until you pay.

## Numbers and plans

days = { $n ->
    [one] { $n } day
   *[other] { $n } days
}
allowance = { $data } for { $days }
allowance-daily = { $data } per day for { $days }
per-day = { $amount }/day
price-total-for = total for { $days }
data-in-total = { $data } in total
countries-count = { $count ->
    [one] { $count } country
   *[other] { $count } countries
}
kind-local = Local
kind-regional = Regional
kind-global = Global
destination-global = Global
activation-first-install = Validity starts when you install the eSIM.
activation-first-network = Validity starts when the eSIM first connects to a network in the destination.
activation-unknown = When validity starts was not reported. Ask us before you buy.
activation-short-first-install = Starts when installed
activation-short-first-network = Starts on first connection

## Lists

catalog-loading = Our plan catalog is being loaded. Please check back in a minute.
dest-covering-from = Regional and global plans from { $price }
dest-covering = Regional and global plans
dest-plans-from = { $count ->
    [one] { $count } plan
   *[other] { $count } plans
} from { $price }
dest-plans = { $count ->
    [one] { $count } plan
   *[other] { $count } plans
}
region-countries-from = { $countries } · from { $price }
local-plans-none = no local plans
local-plans-from = { $count ->
    [one] { $count } local plan
   *[other] { $count } local plans
} from { $price }
local-plans = { $count ->
    [one] { $count } local plan
   *[other] { $count } local plans
}
list-sort-by = Sort by
list-duration = Duration
list-apply = Apply
list-all-durations = Show all durations
sort-price = Lowest price
sort-data = Most data
sort-validity = Longest validity
any-duration = Any duration
esim-for = eSIM for { $name }
plans-heading-for = eSIM data plans for { $name }
countries-covered = Countries covered

## Home and search

home-title = eSIM data plans for travellers
home-heading = Mobile data for your trip, installed in minutes
home-lead = Pick your destination, pay, and get your eSIM by email. No roaming bills, no plastic SIM.
home-popular = Popular destinations
home-several-countries = Travelling to several countries?
home-how = How it works
home-step-check-html = Check that your phone <a href="/help/compatibility">supports eSIM and is not carrier-locked</a>.
home-step-pay = Choose a plan and pay. We email you a private link to your eSIM.
home-step-scan-html = Scan the QR code from your order page (some eSIMs also have an install button). <a href="/help/installation">See the steps</a>.
search-label = Where are you travelling?
search-placeholder = Country name or code, e.g. Japan or JP
search-button = Search
search-title = Search: { $query }
search-heading = Find your destination
search-no-match-html = No destination matches “{ $query }”. Try another spelling of the country’s name or its two-letter code, or <a href="/countries">browse all countries</a>.
search-results = { $count ->
    [one] { $count } destination
   *[other] { $count } destinations
} for “{ $query }”
search-regional-plans = Regional plans · { $detail }

## Countries and regions

countries-title = All countries
country-local-heading = Plans for { $name }
country-no-local = There are no local plans for { $name }; the regional and global plans below cover it.
country-no-local-duration = No local plan has this duration.
country-covering-heading = Regional and global plans that include { $name }
country-no-covering-duration = No regional or global plan has this duration.
country-no-covering = No regional or global plan covers { $name } right now.
regions-title = Regional and global plans
regions-lead = One eSIM for several countries.
regions-none = No regional plans are available right now.
region-lead = One eSIM for the whole region. Covers { $count ->
    [one] { $count } country
   *[other] { $count } countries
}.
region-plans-heading = Regional plans for { $name }
region-no-plans-duration = No regional plan has this duration.
region-no-plans = No regional plan for { $name } is on sale right now. The countries below may have plans of their own.
region-one-country = Staying in one country? Its page lists plans for that country alone.

## The plan page

plan-lead-local = Local eSIM for { $name }
plan-lead-regional = Regional eSIM for { $name }. Covers { $count ->
    [one] { $count } country
   *[other] { $count } countries
}.
plan-lead-global = Global eSIM. Covers { $count ->
    [one] { $count } country
   *[other] { $count } countries
}.
temporarily-unavailable = Temporarily unavailable
plan-buy = Buy this eSIM
plan-price = Price
plan-price-terms = USD, one-time. Prices can change until you pay.
plan-price-terms-daily = USD, one-time, { $note } ({ $per_day }). Prices can change until you pay.
plan-paused = This eSIM is temporarily unavailable: we are not taking new orders right now. Nothing can be charged. Please check back later.
form-problem = There is a problem
form-problems = { $count ->
    [one] There is a problem
   *[other] There are { $count } problems
}
form-error-prefix = Error:
plan-email-label = Email for your eSIM
plan-email-hint = We send the link to your eSIM here. Check it carefully.
plan-confirm-device-html = My phone supports eSIM and is not carrier-locked (<a href="/help/compatibility">how to check</a>)
plan-continue = Continue to payment · { $price }
plan-not-online = This plan cannot be bought online.
plan-not-on-sale = This plan is not on sale. It cannot be bought here.
plan-details = Plan details
plan-data = Data
plan-daily-renews = the allowance renews every day; unused data does not carry over
plan-validity = Validity
plan-fair-use = Fair use
plan-network-type = Network type
plan-networks = Networks
plan-check-phone-html = Before buying, check that <a href="/help/compatibility">your phone supports eSIM and is not carrier-locked</a>.

## Checkout

form-expired = This form has expired. Go back, reload the page and try again.
checkout-too-many = Too many checkout attempts from your connection. Wait a minute, then send the form again.
checkout-email-invalid = Enter the email address where we should send your eSIM, like name@example.com.
checkout-email-suggestion = Did you mean { $email }?
checkout-email-use = Use { $email }
checkout-email-keep = Or keep { $email }: continue with the button below.
checkout-confirm-device = Confirm that your phone supports eSIM and is not carrier-locked.
checkout-price-not-number = The price in the form is not a number.
problem-gone-title = This plan is no longer available
problem-gone = Our supplier has just stopped selling this plan. Nothing was charged. These plans cover the same destination:
problem-price-title = The price has changed
problem-price = The price of this plan is now { $price }. Nothing was charged. Continue if you still want it.
problem-not-sellable-title = This plan cannot be bought online
problem-not-sellable = This plan cannot be paid for online right now. Nothing was charged.
problem-wallet-short = We cannot sell this plan right now. Nothing was charged. Please try again later.
problem-sales-held = We cannot take orders right now while we confirm our supplier account. Nothing was charged. Please try again in a few minutes.
problem-continue-at = Continue at { $price }
problem-back-to-plan = Back to the plan
problem-all-plans-for = All plans for { $name }

## Help

help-compatibility-title = Does my phone support eSIM?
help-installation-title = How installation works
help-refunds-title = How refunds work
help-write-to-html = Write to us at <a href="mailto:{ $address }">{ $address }</a>, or ask your phone’s maker, before buying.
compat-intro-html = An eSIM works only on a phone that supports eSIM <strong>and</strong> is not locked to a carrier. Check both before you buy: an eSIM cannot be moved to another phone once installed.
compat-iphone-1-html = Open <strong>Settings → General → About</strong>.
compat-iphone-2-html = Look for <strong>Digital SIM</strong> or <strong>Available SIM</strong>: if it is listed, your iPhone supports eSIM (iPhone XS, XR and later).
compat-iphone-3-html = Under <strong>Carrier Lock</strong> it must say <strong>No SIM restrictions</strong>.
compat-android-1-html = Open <strong>Settings → Network &amp; internet → SIMs</strong> (or <strong>Connections → SIM manager</strong> on Samsung).
compat-android-2-html = If you see <strong>Add eSIM</strong> or <strong>Download a SIM instead</strong>, your phone supports eSIM.
compat-android-3-html = Dial <code>*#06#</code>: a line labelled <strong>EID</strong> also means eSIM support.
compat-android-4 = To check the carrier lock, put in a SIM card from another carrier, or ask the carrier that sold you the phone.
compat-unsure = Still unsure?
compat-ask-maker = Ask your phone’s maker, or the carrier that sold you the phone, before buying.
compat-contract-locked = Phones bought from a carrier on contract are often locked.
install-step-1 = After you pay, we email you a private link. Keep it to yourself: it shows your eSIM.
install-step-2 = When to install depends on the plan. If its validity starts when you install the eSIM, install it when you arrive or just before you need it. If validity starts when the eSIM first connects to a network in the destination, you can install it before you travel, while you have Wi-Fi. The plan page and your order page say which.
install-step-3 = Open the link on a second screen and scan the QR code with your phone’s camera. Some eSIMs also come with an install button: if your page shows one, you can open the link on the phone itself and tap it. If neither works, enter the SM-DP+ address and activation code by hand.
install-step-4 = On arrival, switch the eSIM on for mobile data and turn on data roaming for that line.
lost-email-html = Lost the email with your link? <a href="/lost-link">Get your order links by email</a>.
install-do-not-delete-html = <strong>Do not delete the eSIM</strong> from your phone before you are done with it: once deleted, it usually cannot be installed again.
refunds-intro = We buy your eSIM from our supplier only after your payment is confirmed. What happens if that goes wrong:
refunds-not-issued-html = <strong>The supplier reports that your eSIM could not be issued.</strong> You get a full refund to your original payment method automatically, and an email saying so.
refunds-refused-html = <strong>The supplier refuses the order</strong> (for example, the plan was withdrawn a moment before).
refunds-refused-auto = You get a full refund automatically.
refunds-refused-manual = We look at the order and refund you in full.
refunds-unavailable-html = <strong>Our supplier is briefly unavailable, or our account with it needs attention.</strong> Your order waits and is completed as soon as it can be; you are not charged twice and never get two eSIMs. If we decide not to wait, we refund you in full.
refunds-every-email = Every refund email says which of these happened. A refund goes back to the card or account you paid with; depending on your bank it can take 5 to 10 business days to appear.
refunds-broken-write-html = If your eSIM was delivered but will not work, write to us at <a href="mailto:{ $address }">{ $address }</a> (or reply to your order email) with the private link from that email before you delete the eSIM, and we will investigate.
refunds-broken-keep = If your eSIM was delivered but will not work, do not delete it, and keep the private link from your email: it is how your order is found.
refunds-installed = An eSIM that has been installed or used cannot be refunded.

## Lost your link?

lost-link-title = Lost your link?
lost-link-sent = If orders were paid for with that email address, we are sending it their private links now. It can take a few minutes; check your spam folder too.
lost-link-sent-limit = We send this email at most once every 15 minutes for one address, with fresh links to your latest orders. The links in your earlier emails keep working unless the shop ended them.
lost-link-sent-retry-html = Nothing arrived? Check that you typed the address you used at checkout, then <a href="/lost-link">try again</a> a little later.
lost-link-intro = Your order page opens from the private link in the emails we sent about your order. Enter the email address you used at checkout and we will email you fresh links to your orders.
lost-link-email-label = Email used at checkout
lost-link-email-hint = We only write to this address, and only if it has orders with us.
lost-link-submit = Email me my order links
lost-link-too-many = Too many requests from your connection. Wait 15 minutes, then send the form again.
lost-link-email-invalid = Enter the email address you used at checkout, like name@example.com.

## Errors

error-not-found-title = Page not found
error-not-found = There is nothing at this address. Check the link, or start again from the home page.
error-order-not-found-title = Open your order from your email
error-order-not-found = Your order page opens from the private link in the emails we send about your order (“View your order” or “Install your eSIM”). On another device, such as a computer to scan the QR code from, open that email there and use its link. The emails come from this shop once your payment is confirmed; if you cannot find one, check your spam folder. Links stop working a while after an order is complete, or sooner when the shop ends them for your safety: ask for fresh links by email below.
error-bad-request-title = That did not work
error-forbidden-title = Not allowed
error-unauthorized = This address needs the operator's access token.
error-conflict-title = That cannot be done right now
error-too-many-title = Too many requests
error-too-many = Please wait a moment and try again.
error-unavailable = The shop cannot answer right now. Please try again in a minute.
error-internal-title = Something went wrong
error-internal = An unexpected error stopped this request. It has been logged; quote the request id if you contact us.
error-unstorable-text = Some of the information sent contains a character that cannot be used (a null character). Remove it and try again.
error-bad-input = Some of the information sent was not valid. Go back and try again.
error-lost-link = Lost your link? Get it by email
error-home = Go to the home page
error-code = Error { $status }
error-request-id = request id

## Promotion codes and display currencies
promo-field-label = Promotion code (optional)
promo-bad-format = A promotion code is 3 to 32 letters and digits. Check it, or leave the field empty.
promo-unknown = This promotion code does not exist or is no longer offered.
promo-not-yet = This promotion code is not valid yet.
promo-expired = This promotion code has expired.
promo-other-plans = This promotion code does not apply to this plan.
promo-used-up = This promotion code has been used up.
promo-not-for-this-order = This promotion code cannot be used for this order.
promo-held = Other unpaid checkouts from your connection already hold this promotion code. Pay for one of them, or try again in 30 minutes.
promo-problem-title = This promotion code cannot be used
promo-problem = { $reason } Nothing was charged.
checkout-description-promo = { $plan } · promotion code { $code }
# A price in another currency, shown beside the US dollar price only (never charged).
display-price = ≈ { $amount }
display-price-rate-of = rate of { $date }

## Plan choice: sections of a plan list, day pickers, breadcrumbs, the global plans
section-daily = Daily plans ({ $count })
section-total = Total data plans ({ $count })
section-regional = Regional plans ({ $count })
section-global = Global plans ({ $count })
list-show-more = Show { $count } more
choose-days = Days
choose-submit = See this plan
plan-durations = Other durations
crumb-home = Home
crumb-label = Breadcrumb
global-title = Global plans
global-lead = One eSIM for travelling around the world.
global-none = No global plan is on sale right now.
regions-global-link = Global plans: one eSIM for the whole world

# What search results show of a page (its <meta name="description">) and a plan page's title.
meta-description = eSIM data plans for travellers: buy online, get the eSIM by email in minutes, install by QR code or with one tap.
plan-description = { $name } eSIM: { $allowance }, { $price }. Delivered by email in minutes; install by QR code or with one tap.
plan-search-title = { $name } eSIM — { $allowance }, { $price }
# The price line of a country's or region's share card (the picture of a shared link).
share-card-from = From { $price }
listing-description = eSIM plans for { $name }: { $count ->
    [one] 1 plan
   *[other] { $count } plans
} from { $price }. Delivered by email in minutes; install by QR code or with one tap.

## Legal pages: the footer's links and the page around the owner's text
nav-legal = Legal
legal-terms-title = Terms and conditions
legal-privacy-title = Privacy notice
legal-refunds-title = Refunds and withdrawal
legal-imprint-title = Imprint
legal-draft-banner = Draft: the shop owner has not reviewed this text yet.
legal-updated = Last changed on { $date }.
refunds-policy-link-html = The binding rules, including your right of withdrawal, are in our <a href="/refunds-and-withdrawal">refund and withdrawal policy</a>.

## Checkout: consent to the terms and the withdrawal notice for digital content
checkout-accept-terms-html = I agree to the <a href="/terms">terms and conditions</a>.
checkout-withdrawal-notice = An eSIM is digital content: you lose your right of withdrawal once it has been delivered.
checkout-accept-terms = Agree to the terms and conditions to continue.

my-esims-title = My eSIMs
my-esims-signed-in = Signed in as { $email }.
my-esims-none = No eSIMs have been bought with this email address yet.
my-esims-order-number = Order number
my-esims-bought = Bought
my-esims-open = Open order and install
my-esims-pages = More eSIMs
my-esims-newest = Newest eSIMs
my-esims-older = Older eSIMs
my-esims-sign-out = Sign out
my-esims-sign-out-everywhere = Sign out everywhere
my-esims-sign-out-everywhere-hint = Signs out every browser and phone where you signed in with this email address.
my-esims-link-used = This sign-in link no longer works: each link works once, for 30 minutes. Enter your email address and we will send you a new one.
my-esims-sign-in-intro = Sign in on this device to see all the eSIMs bought with your email address.
my-esims-sign-in = Sign in to My eSIMs
lost-link-my-esims = The email also has a link that signs you in to My eSIMs, where all your eSIMs are listed.
checkout-quantity-label = Number of eSIMs
checkout-quantity-not-number = Choose the number of eSIMs from the list.
checkout-quantity-range = Choose between 1 and { $max } eSIMs.
checkout-total = Total:
checkout-travellers-label = Who is each eSIM for? (optional)
checkout-travellers-hint = A name tells the eSIMs apart on your order page. A traveller with an email gets their own link to install their eSIM. Rows beyond the number of eSIMs are left out.
checkout-traveller-legend = eSIM { $n }
checkout-traveller-name = Name
checkout-traveller-email = Email for their own link
checkout-traveller-name-invalid = The name for eSIM { $n } is too long: at most { $max } characters.
checkout-traveller-email-invalid = The email for eSIM { $n } is not a valid address, like ben@example.com.
promo-too-many-esims = This promotion code covers fewer eSIMs than you chose. Choose fewer eSIMs or remove the code.
checkout-several-label = Several eSIMs, one per traveller (optional)
