# La página privada del pedido y la página de pago de demostración.

order-title = Pedido { $number }
order-label = Pedido
order-refresh = Actualizar estado
order-try-again = Intentar de nuevo
order-install-heading = Instala tu eSIM
order-do-not-delete-html = <strong>No borres esta eSIM</strong> del teléfono hasta que termine tu viaje: una vez borrada, normalmente no se puede volver a instalar.
order-on-device = En el teléfono con el que viajas
order-install-iphone = Instalar en el iPhone
order-install-phone = Instalar en este teléfono
order-install-hint-iphone = Púlsalo en el iPhone en el que vas a instalar la eSIM. Si no, introduce los datos a mano o escanea el código QR desde otra pantalla.
order-install-hint-phone = Púlsalo en el teléfono en el que vas a instalar la eSIM. Si no, introduce los datos a mano o escanea el código QR desde otra pantalla.
order-by-hand = Introdúcela a mano
order-select-to-copy = Selecciona un valor para copiarlo.
order-copy = Copiar
order-copy-label = Copiar { $label }
order-copied = { $label }: copiado.
order-activation-code = Código de activación
order-two-parts = Algunos teléfonos piden sus dos partes por separado:
order-smdp-address = Dirección SM-DP+
order-matching-id = Código de activación (matching ID)
order-iphone-1-html = Abre <strong>Ajustes → Datos móviles → Añadir eSIM</strong>.
order-iphone-2-html = Pulsa <strong>Introducir datos manualmente</strong> y escribe la dirección SM-DP+ y el código de activación, o elige <strong>Usar código QR</strong> y escanea el código QR.
order-iphone-3 = Ponle un nombre a la nueva línea (por ejemplo, «Viaje») y, si quieres, mantén tu línea habitual para las llamadas.
order-android-1-html = Abre <strong>Ajustes → Redes e Internet → SIMs → Añadir eSIM</strong> (Samsung: <strong>Conexiones → Administrador de SIM → Añadir eSIM</strong>).
order-android-2-html = Elige <strong>Introducir código de activación</strong> y pega el código de arriba, o escanea el código QR.
order-other-screen = Desde otra pantalla
order-qr-label = Código QR de tu eSIM
order-qr-caption = Abre esta página en un ordenador o una tableta (o imprímela) y escanea el código QR con la cámara del teléfono.
order-on-arrival = Al llegar, activa esta eSIM para los datos móviles y activa la itinerancia de datos en ella.
order-number = Número de pedido
order-plan = Plan
order-email = Correo
order-timeline = Historial
order-newest-first = Lo más reciente primero.
order-keep-private = No compartas el enlace de tu correo: abre esta página.

install-advice-first-install = La validez empieza cuando instalas esta eSIM, así que instálala al llegar o justo antes de necesitarla. Para instalarla necesitas wifi u otra conexión.
install-advice-first-network = La validez empieza cuando esta eSIM se conecta por primera vez a una red en tu destino, así que puedes instalarla ahora, mientras tienes wifi, y esperará hasta que llegues.
install-advice-unknown = Instálala poco antes de necesitarla, mientras tengas wifi u otra conexión: algunos planes empiezan a contar los días al instalarse.

status-awaiting-payment = Confirmando tu pago…
status-awaiting-payment-text = En cuanto tu proveedor de pagos confirme el pago, pedimos tu eSIM.
status-paid = Pago recibido
status-paid-text = Estamos pidiendo tu eSIM. Suele tardar menos de un minuto; te avisamos por correo cuando esté lista.
status-preparing = Estamos preparando tu eSIM
status-preparing-text = Nuestro proveedor está preparando tu eSIM. Te avisamos por correo cuando esté lista.
status-fulfilled = Tu eSIM está lista
status-fulfilled-text = Instálala en el teléfono con el que viajas: los pasos están abajo.
status-payment-failed = Pago no completado
status-payment-failed-text = Tu pago no se realizó o la página de pago caducó. No se ha cobrado nada. Puedes volver a intentarlo desde la página del plan.
status-needs-attention = Estamos revisando tu pedido
status-needs-attention-text = Algo necesita una revisión por nuestra parte. No tienes que hacer nada: te escribiremos en cuanto esté resuelto.
status-failed = No hemos podido completar tu pedido
status-failed-text = Nuestro proveedor no ha podido suministrar esta eSIM. Te estamos reembolsando el pago completo.
status-refunded = Reembolsado
status-refunded-text = Te hemos reembolsado el pago completo en tu medio de pago original.
status-updated = Actualizado

pay-title = Pago en MODO DE PRUEBA
pay-test-mode-html = <strong>MODO DE PRUEBA</strong>: pagos de demostración; no se cobra ninguna tarjeta ni se mueve dinero.
pay-amount = Pagar { $amount }
pay-for = Concepto
pay-amount-label = Importe
pay-amount-usd = { $amount }
pay-decline = Rechazar el pago
pay-closed = Este pago ya no está abierto.
pay-see-order = Ver tu pedido
promo-code-label = Código promocional
promo-pay-line = { $code }: { $discount } de descuento sobre { $list }
pay-units-line = { $count } eSIM × { $price }
order-unit-label = eSIM { $index } de { $count }
order-units-heading = Tus { $count } eSIM

# The departure day: the checkout's optional field and the order page's form.
trip-date-label = ¿Cuándo sales? (opcional)
trip-date-hint = La mañana del día antes te enviamos un recordatorio con tu eSIM y cuándo instalarla. Déjalo vacío si no quieres recordatorio.
trip-date-invalid = Escribe el día de salida como una fecha, por ejemplo 2026-12-24.
trip-date-past = El día de salida no puede estar en el pasado.
trip-date-too-far = El día de salida puede ser como mucho dentro de un año.
order-trip-heading = Tu viaje
order-trip-none = Dinos cuándo sales y el día antes te enviamos un recordatorio con tu eSIM.
order-trip-on = Sales el { $day }. El día antes te enviamos un recordatorio.
order-trip-add = Indicar la fecha de salida
order-trip-change = Cambiar o borrar la fecha
trip-title = ¿Cuándo sales?
trip-intro = La mañana del día antes de salir te enviamos un recordatorio con tu eSIM y cuándo instalarla.
trip-save = Guardar fecha
trip-remove = Borrar la fecha (sin recordatorio)
trip-back = Volver a tu pedido

# Reminders of unfinished checkouts: the consent at checkout, the email, the unsubscribe page.
checkout-remind-unfinished = Envíame un recordatorio si no termino
checkout-remind-unfinished-hint = Un correo una hora después de que se cierre la página de pago, solo si no has pagado. Nunca más de uno por semana.
unsubscribe-title = Recordatorios de pedidos sin terminar
unsubscribe-intro = Pulsa el botón para que esta dirección no reciba más recordatorios de pedidos sin terminar. Los correos sobre pedidos pagados te seguirán llegando.
unsubscribe-button = Darse de baja
unsubscribe-done = Hecho: esta dirección ya no recibirá recordatorios de pedidos sin terminar.

# Sending one eSIM of several to someone.
order-send-heading = Enviar esta eSIM a otra persona
order-send-hint = Recibirá un correo con su propio enlace privado, que solo abre esta eSIM.
order-send-email = Su dirección de correo
order-send-button = Enviar el enlace
order-send-sent = El enlace a esta eSIM está en camino a { $email }.
order-send-invalid = Escribe una dirección de correo como nombre@example.com.
order-send-too-many = Se han enviado demasiados enlaces desde aquí. Vuelve a intentarlo en 15 minutos.
order-send-not-ready = Esta eSIM aún no está lista: podrás enviarla cuando lo esté.
pay-billing-country = País de facturación
pay-choose-country = Elige tu país
pay-continue = Continuar
pay-country-needed = Elige primero tu país de facturación: el impuesto depende de él.
pay-before-tax = Precio sin impuestos
pay-tax = Impuesto { $rate }
pay-tax-none = Sin impuesto para este país
pay-tax-included = Impuesto { $rate } incluido
