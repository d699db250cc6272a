# The private order page and the demo payment page.

order-title = Order { $number }
order-label = Order
order-refresh = Refresh status
order-try-again = Try again
order-install-heading = Install your eSIM
order-do-not-delete-html = <strong>Do not delete this eSIM</strong> from your phone until your trip is over: once deleted, it usually cannot be installed again.
order-on-device = On the phone you travel with
order-install-iphone = Install on iPhone
order-install-phone = Install on this phone
order-install-hint-iphone = Tap it on the iPhone you are installing the eSIM on. Otherwise, enter the details by hand, or scan the QR code from another screen.
order-install-hint-phone = Tap it on the phone you are installing the eSIM on. Otherwise, enter the details by hand, or scan the QR code from another screen.
order-by-hand = Enter it by hand
order-select-to-copy = Select a value to copy it.
order-copy = Copy
order-copy-label = Copy { $label }
order-copied = { $label } copied.
order-activation-code = Activation code
order-two-parts = Some phones ask for its two parts separately:
order-smdp-address = SM-DP+ address
order-matching-id = Activation code (matching ID)
order-iphone-1-html = Open <strong>Settings → Mobile Service → Add eSIM</strong> (or <strong>Cellular → Add eSIM</strong>).
order-iphone-2-html = Tap <strong>Enter Details Manually</strong> and type the SM-DP+ address and activation code, or choose <strong>Use QR Code</strong> and scan the QR code.
order-iphone-3 = Label the new line (for example “Travel”) and keep your usual line for calls if you like.
order-android-1-html = Open <strong>Settings → Network &amp; internet → SIMs → Add eSIM</strong> (Samsung: <strong>Connections → SIM manager → Add eSIM</strong>).
order-android-2-html = Choose <strong>Enter activation code</strong> and paste the code above, or scan the QR code.
order-other-screen = From another screen
order-qr-label = QR code of your eSIM
order-qr-caption = Open this page on a computer or tablet (or print it) and scan the QR code with the phone’s camera.
order-on-arrival = When you arrive, turn on this eSIM for mobile data and switch on data roaming for it.
order-number = Order number
order-plan = Plan
order-email = Email
order-timeline = Timeline
order-newest-first = Newest first.
order-keep-private = Keep the link from your email private: it opens this page.

install-advice-first-install = Validity starts when you install this eSIM, so install it when you arrive, or just before you need it. You need Wi-Fi or another connection to install it.
install-advice-first-network = Validity starts when this eSIM first connects to a network at your destination, so you can install it now, while you have Wi-Fi, and it waits until you arrive.
install-advice-unknown = Install it shortly before you need it, while you have Wi-Fi or another connection: some plans start counting their days at installation.

status-awaiting-payment = Confirming your payment…
status-awaiting-payment-text = As soon as your payment provider confirms the payment, we order your eSIM.
status-paid = Payment received
status-paid-text = We are ordering your eSIM now. This usually takes less than a minute; we email you when it is ready.
status-preparing = Your eSIM is being prepared
status-preparing-text = Our supplier is preparing your eSIM. We email you when it is ready.
status-fulfilled = Your eSIM is ready
status-fulfilled-text = Install it on the phone you are travelling with: the steps are below.
status-payment-failed = Payment not completed
status-payment-failed-text = Your payment did not go through or the payment page expired. Nothing was charged. You can try again from the plan page.
status-needs-attention = We are looking into your order
status-needs-attention-text = Something needs a closer look on our side. You do not need to do anything: we will email you as soon as it is resolved.
status-failed = We could not complete your order
status-failed-text = Our supplier could not provide this eSIM. Your payment is being refunded in full.
status-refunded = Refunded
status-refunded-text = Your payment has been refunded in full to your original payment method.
status-updated = Updated

pay-title = TEST MODE payment
pay-test-mode-html = <strong>TEST MODE</strong> — demo payments: no card is charged and no money moves.
pay-amount = Pay { $amount }
pay-for = For
pay-amount-label = Amount
pay-amount-usd = { $amount } USD
pay-decline = Decline payment
pay-closed = This payment is no longer open.
pay-see-order = See your order
promo-code-label = Promotion code
promo-pay-line = { $code }: { $discount } off { $list }
pay-units-line = { $count } eSIMs × { $price }
order-unit-label = eSIM { $index } of { $count }
order-units-heading = Your { $count } eSIMs

# The departure day: the checkout's optional field and the order page's form.
trip-date-label = When do you leave? (optional)
trip-date-hint = We email you a reminder with your eSIM and when to install it on the morning of the day before. Leave it empty for no reminder.
trip-date-invalid = Enter the day you leave as a date, like 2026-12-24.
trip-date-past = The day you leave cannot be in the past.
trip-date-too-far = The day you leave can be at most one year from today.
order-trip-heading = Your trip
order-trip-none = Tell us when you leave and we email you a reminder with your eSIM the day before.
order-trip-on = You leave on { $day }. We email you a reminder the day before.
order-trip-add = Add your departure date
order-trip-change = Change or remove the date
trip-title = When do you leave?
trip-intro = We email you a reminder with your eSIM and when to install it on the morning of the day before you leave.
trip-save = Save date
trip-remove = Remove the date (no reminder)
trip-back = Back to your order

# Reminders of unfinished checkouts: the consent at checkout, the email, the unsubscribe page.
checkout-remind-unfinished = Email me a reminder if I don't finish
checkout-remind-unfinished-hint = One email an hour after the payment page closes, only if you have not paid. Never more than one a week.
unsubscribe-title = Reminders of unfinished orders
unsubscribe-intro = Press the button to get no more reminders of unfinished orders at this address. Emails about orders you paid for still reach you.
unsubscribe-button = Unsubscribe
unsubscribe-done = Done: this address gets no more reminders of unfinished orders.

# Sending one eSIM of several to someone.
order-send-heading = Send this eSIM to someone
order-send-hint = They get an email with their own private link, which opens only this eSIM.
order-send-email = Their email address
order-send-button = Send the link
order-send-sent = The link to this eSIM is on its way to { $email }.
order-send-invalid = Enter an email address like name@example.com.
order-send-too-many = Too many links were sent from here. Please try again in 15 minutes.
order-send-not-ready = This eSIM is not ready yet: you can send it once it is.
pay-billing-country = Billing country
pay-choose-country = Choose your country
pay-continue = Continue
pay-country-needed = Choose your billing country first: the tax depends on it.
pay-before-tax = Price before tax
pay-tax = Tax { $rate }
pay-tax-none = No tax for this country
pay-tax-included = Tax { $rate } included
