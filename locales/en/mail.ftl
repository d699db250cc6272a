# The customer emails (the owners' alerts stay English and are not here).

mail-button-fallback = If the button does not work, copy this address into your browser:
mail-receipt-order = Order
mail-receipt-ordered-on = Ordered on
mail-receipt-promo = Promotion code
mail-receipt-promo-line = { $code }, { $discount } off { $list }
mail-unknown-plan = eSIM plan { $id }
mail-private-footer = This link is private: anyone who has it can see your order. Please do not forward this email. Quote your order number { $number } if you contact us.

mail-paid-subject = Payment received – { $shop }
mail-paid-preheader = We are getting your eSIM ready. You will get another email when it is.
mail-paid-heading = Thank you, your payment is confirmed
mail-paid-action = View your order
mail-paid-intro = We received your payment of { $amount } for { $plan }.
mail-paid-intro-html = We received your payment of <strong>{ $amount }</strong> for <strong>{ $plan }</strong>.
mail-paid-next = We are now getting your eSIM ready. It usually takes a few minutes; we will email you again as soon as it can be installed. You can follow your order at any time:

mail-ready-subject = Your eSIM is ready to install – { $shop }
mail-ready-preheader = Open your private order page to install it.
mail-ready-heading = Your eSIM is ready to install
mail-ready-action = Install your eSIM
mail-ready-intro = Your eSIM for { $plan } is ready.
mail-ready-intro-html = Your eSIM for <strong>{ $plan }</strong> is ready.
mail-units-plan = { $count } eSIMs · { $plan }
mail-ready-unit-intro = Your eSIM for { $plan } ({ $unit }) is ready.
mail-ready-unit-intro-html = Your eSIM for <strong>{ $plan }</strong> ({ $unit }) is ready.
mail-ready-open = Open your private order page to install it. It says when to install for this plan, and shows the details for installing on your phone, a QR code to scan from another screen, and step-by-step instructions for iPhone and Android.
mail-ready-do-not-delete = Do not delete this eSIM from your phone until your trip is over: once deleted, it usually cannot be installed again.
mail-ready-footer = Keep this email: the link is how you get back to your installation details. It is private, so please do not share it. Quote your order number { $number } if you contact us.

mail-refunded-subject = Your order has been refunded – { $shop }
mail-refunded-preheader = The money is on its way back to you.
mail-refunded-heading = Your order has been refunded
mail-refunded-action = View your order
mail-refunded-intro = We refunded { $amount } for { $plan }.
mail-refunded-intro-html = We refunded <strong>{ $amount }</strong> for <strong>{ $plan }</strong>.
mail-refunded-unit = This refund is for { $unit } of your order; its other eSIMs are not affected.
mail-refunded-reason = Reason: { $reason }
mail-refunded-when = The refund goes back to the card or account you paid with. Depending on your bank it can take 5 to 10 business days to appear on your statement.
refund-reason-delivery-failed = we could not deliver this eSIM
refund-reason-on-request = the shop refunded this order on request
refund-reason-payment-problem = there was a problem with the payment

mail-lost-subject = Your order links – { $shop }
mail-lost-preheader = The private links to your orders, as you asked.
mail-lost-heading = Your order links
mail-lost-action = View your latest order
mail-lost-intro = Someone (we hope you) asked for the links to the orders made with this email address. Here they are, newest first. Each link opens its order page, where you can install or view your eSIM.
mail-lost-sign-in = To see all your eSIMs in one place, sign in to My eSIMs. The sign-in link works once, within 30 minutes.
mail-lost-sign-in-link = Sign in to My eSIMs
mail-lost-ignore = If you did not ask for this email, you can ignore it: the links only work for whoever has this email.
mail-lost-footer = These links are private: anyone who has them can see your orders. Please do not forward this email.

mail-traveller-subject = Your eSIM is ready to install – { $shop }
mail-traveller-preheader = Open your private page to install it.
mail-traveller-heading = An eSIM was bought for you
mail-traveller-action = Install your eSIM
mail-traveller-intro = Your eSIM for { $plan } ({ $unit }) is ready.
mail-traveller-footer = Keep this email: the link is how you get back to your installation details. It is private and opens only your eSIM, so please do not share it. Quote the order number { $number } if you contact us.

# The trip reminder, the day before the departure day the buyer gave.
mail-trip-subject = Your trip on { $day }: your eSIM – { $shop }
mail-trip-preheader = Your eSIM for tomorrow's trip, and when to install it.
mail-trip-heading = Your trip starts tomorrow
mail-trip-action = Open your eSIM
mail-trip-purpose = You asked us to remind you of your eSIM the day before you leave, on { $day }.
mail-trip-intro = Your order: { $plan }.
mail-trip-footer = You get this email because you gave your departure date for this order. To stop reminders, remove the date on your order page. The link is private, so please do not share it.

# Reminders of unfinished checkouts: the consent at checkout, the email, the unsubscribe page.
mail-unfinished-subject = You did not finish your order – { $shop }
mail-unfinished-preheader = Your eSIM is still one step away.
mail-unfinished-heading = You did not finish your order
mail-unfinished-action = Back to the plan
mail-unfinished-purpose = You asked us to remind you if you did not finish your order. Your payment page closed without a payment, so nothing was charged.
mail-unfinished-intro = The plan you chose: { $plan }.
mail-unfinished-footer = You get this email because you ticked "Email me a reminder if I don't finish" at checkout. We send at most one a week.
mail-unfinished-unsubscribe = Unsubscribe from these reminders
