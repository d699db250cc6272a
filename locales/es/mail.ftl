# Los correos a los clientes (las alertas para los propietarios siguen en inglés y no están aquí).

mail-button-fallback = Si el botón no funciona, copia esta dirección en tu navegador:
mail-receipt-order = Pedido
mail-receipt-ordered-on = Fecha del pedido
mail-receipt-promo = Código promocional
mail-receipt-promo-line = { $code }, { $discount } de descuento sobre { $list }
mail-unknown-plan = Plan eSIM { $id }
mail-private-footer = Este enlace es privado: cualquiera que lo tenga puede ver tu pedido. No reenvíes este correo. Indica tu número de pedido { $number } si te pones en contacto con nosotros.

mail-paid-subject = Pago recibido – { $shop }
mail-paid-preheader = Estamos preparando tu eSIM. Recibirás otro correo cuando esté lista.
mail-paid-heading = Gracias, tu pago está confirmado
mail-paid-action = Ver tu pedido
mail-paid-intro = Hemos recibido tu pago de { $amount } por { $plan }.
mail-paid-intro-html = Hemos recibido tu pago de <strong>{ $amount }</strong> por <strong>{ $plan }</strong>.
mail-paid-next = Ahora estamos preparando tu eSIM. Suele tardar unos minutos; te escribiremos de nuevo en cuanto se pueda instalar. Puedes seguir tu pedido en cualquier momento:

mail-ready-subject = Tu eSIM está lista para instalar – { $shop }
mail-ready-preheader = Abre la página privada de tu pedido para instalarla.
mail-ready-heading = Tu eSIM está lista para instalar
mail-ready-action = Instalar tu eSIM
mail-ready-intro = Tu eSIM para { $plan } está lista.
mail-ready-intro-html = Tu eSIM para <strong>{ $plan }</strong> está lista.
mail-units-plan = { $count } eSIM · { $plan }
mail-ready-unit-intro = Tu eSIM para { $plan } ({ $unit }) está lista.
mail-ready-unit-intro-html = Tu eSIM para <strong>{ $plan }</strong> ({ $unit }) está lista.
mail-ready-open = Abre la página privada de tu pedido para instalarla. Indica cuándo instalarla para este plan y muestra los datos para instalarla en tu teléfono, un código QR para escanear desde otra pantalla e instrucciones paso a paso para iPhone y Android.
mail-ready-do-not-delete = No borres esta eSIM del teléfono hasta que termine tu viaje: una vez borrada, normalmente no se puede volver a instalar.
mail-ready-footer = Guarda este correo: el enlace es la forma de volver a los datos de instalación. Es privado, así que no lo compartas. Indica tu número de pedido { $number } si te pones en contacto con nosotros.

mail-refunded-subject = Tu pedido ha sido reembolsado – { $shop }
mail-refunded-preheader = Tu dinero ya está en camino de vuelta.
mail-refunded-heading = Tu pedido ha sido reembolsado
mail-refunded-action = Ver tu pedido
mail-refunded-intro = Te hemos reembolsado { $amount } por { $plan }.
mail-refunded-intro-html = Te hemos reembolsado <strong>{ $amount }</strong> por <strong>{ $plan }</strong>.
mail-refunded-unit = Este reembolso corresponde a { $unit } de tu pedido; sus demás eSIM no se ven afectadas.
mail-refunded-reason = Motivo: { $reason }
mail-refunded-when = El reembolso vuelve a la tarjeta o cuenta con la que pagaste. Según tu banco, puede tardar entre 5 y 10 días hábiles en aparecer en tu extracto.
refund-reason-delivery-failed = no hemos podido entregar esta eSIM
refund-reason-on-request = la tienda ha reembolsado este pedido a petición
refund-reason-payment-problem = hubo un problema con el pago

mail-lost-subject = Los enlaces de tus pedidos – { $shop }
mail-lost-preheader = Los enlaces privados a tus pedidos, como pediste.
mail-lost-heading = Los enlaces de tus pedidos
mail-lost-action = Ver tu último pedido
mail-lost-intro = Alguien (esperamos que tú) ha pedido los enlaces de los pedidos hechos con esta dirección de correo. Aquí los tienes, del más reciente al más antiguo. Cada enlace abre la página de su pedido, donde puedes instalar o ver tu eSIM.
mail-lost-sign-in = Para ver todas tus eSIM en un solo lugar, entra en Mis eSIM. El enlace de acceso funciona una vez, durante 30 minutos.
mail-lost-sign-in-link = Entrar en Mis eSIM
mail-lost-ignore = Si no has pedido este correo, puedes ignorarlo: los enlaces solo sirven a quien tenga este correo.
mail-lost-footer = Estos enlaces son privados: cualquiera que los tenga puede ver tus pedidos. No reenvíes este correo.

mail-traveller-subject = Tu eSIM está lista para instalar – { $shop }
mail-traveller-preheader = Abre tu página privada para instalarla.
mail-traveller-heading = Alguien ha comprado una eSIM para ti
mail-traveller-action = Instalar tu eSIM
mail-traveller-intro = Tu eSIM para { $plan } ({ $unit }) está lista.
mail-traveller-footer = Guarda este correo: el enlace es la forma de volver a los datos de instalación. Es privado y solo abre tu eSIM, así que no lo compartas. Indica el número de pedido { $number } si te pones en contacto con nosotros.

# The trip reminder, the day before the departure day the buyer gave.
mail-trip-subject = Tu viaje del { $day }: tu eSIM – { $shop }
mail-trip-preheader = Tu eSIM para el viaje de mañana y cuándo instalarla.
mail-trip-heading = Tu viaje empieza mañana
mail-trip-action = Abrir tu eSIM
mail-trip-purpose = Nos pediste que te recordáramos tu eSIM el día antes de salir, el { $day }.
mail-trip-intro = Tu pedido: { $plan }.
mail-trip-footer = Recibes este correo porque indicaste la fecha de salida de este pedido. Para no recibir recordatorios, borra la fecha en la página de tu pedido. El enlace es privado, así que no lo compartas.

# Reminders of unfinished checkouts: the consent at checkout, the email, the unsubscribe page.
mail-unfinished-subject = No terminaste tu pedido – { $shop }
mail-unfinished-preheader = Tu eSIM está a un paso.
mail-unfinished-heading = No terminaste tu pedido
mail-unfinished-action = Volver al plan
mail-unfinished-purpose = Nos pediste que te lo recordáramos si no terminabas tu pedido. La página de pago se cerró sin pago, así que no se cobró nada.
mail-unfinished-intro = El plan que elegiste: { $plan }.
mail-unfinished-footer = Recibes este correo porque marcaste «Envíame un recordatorio si no termino» al pagar. Enviamos como mucho uno por semana.
mail-unfinished-unsubscribe = Darse de baja de estos recordatorios
