# Las páginas de la tienda: marco, catálogo, página del plan, problemas al pagar, ayuda y errores.
# Los mensajes terminados en -html llevan marcado propio; sus argumentos se escapan.

## Marco

skip-to-content = Ir al contenido
nav-main = Principal
nav-countries = Países
nav-regions = Regiones
nav-help = Ayuda
nav-help-pages = Ayuda
nav-language = Idioma
footer-contact-html = ¿Preguntas sobre un pedido? Escríbenos a <a href="mailto:{ $address }">{ $address }</a> o responde a cualquier correo sobre tu pedido.
footer-phone = Teléfono:
footer-prices = Los precios están en dólares estadounidenses y pueden cambiar hasta que pagues.

## Números y planes

days = { $n ->
    [one] { $n } día
   *[other] { $n } días
}
allowance = { $data } durante { $days }
allowance-daily = { $data } al día durante { $days }
per-day = { $amount }/día
price-total-for = total por { $days }
data-in-total = { $data } en total
countries-count = { $count ->
    [one] { $count } país
   *[other] { $count } países
}
kind-local = Local
kind-regional = Regional
kind-global = Global
destination-global = Global
activation-first-install = La validez empieza cuando instalas la eSIM.
activation-first-network = La validez empieza cuando la eSIM se conecta por primera vez a una red en el destino.
activation-unknown = No se ha indicado cuándo empieza la validez. Pregúntanos antes de comprar.
activation-short-first-install = Empieza al instalarla
activation-short-first-network = Empieza con la primera conexión

## Listas

catalog-loading = Estamos cargando nuestro catálogo de planes. Vuelve a intentarlo en un minuto.
dest-covering-from = Planes regionales y globales desde { $price }
dest-covering = Planes regionales y globales
dest-plans-from = { $count ->
    [one] { $count } plan
   *[other] { $count } planes
} desde { $price }
dest-plans = { $count ->
    [one] { $count } plan
   *[other] { $count } planes
}
region-countries-from = { $countries } · desde { $price }
local-plans-none = sin planes locales
local-plans-from = { $count ->
    [one] { $count } plan local
   *[other] { $count } planes locales
} desde { $price }
local-plans = { $count ->
    [one] { $count } plan local
   *[other] { $count } planes locales
}
list-sort-by = Ordenar por
list-duration = Duración
list-apply = Aplicar
list-all-durations = Ver todas las duraciones
sort-price = Precio más bajo
sort-data = Más datos
sort-validity = Mayor validez
any-duration = Cualquier duración
esim-for = eSIM para { $name }
plans-heading-for = Planes de datos eSIM para { $name }
countries-covered = Países incluidos

## Inicio y búsqueda

home-title = Planes de datos eSIM para viajeros
home-heading = Datos móviles para tu viaje, instalados en minutos
home-lead = Elige tu destino, paga y recibe tu eSIM por correo. Sin facturas de roaming ni tarjetas SIM de plástico.
home-popular = Destinos populares
home-several-countries = ¿Viajas a varios países?
home-how = Cómo funciona
home-step-check-html = Comprueba que tu teléfono <a href="/help/compatibility">admite eSIM y no está bloqueado por un operador</a>.
home-step-pay = Elige un plan y paga. Te enviamos por correo un enlace privado a tu eSIM.
home-step-scan-html = Escanea el código QR desde la página de tu pedido (algunas eSIM también tienen un botón de instalación). <a href="/help/installation">Ver los pasos</a>.
search-label = ¿Adónde viajas?
search-placeholder = Nombre o código del país, p. ej. Japón o JP
search-button = Buscar
search-title = Búsqueda: { $query }
search-heading = Encuentra tu destino
search-no-match-html = Ningún destino coincide con «{ $query }». Prueba con otra forma del nombre del país o con su código de dos letras, o <a href="/countries">consulta todos los países</a>.
search-results = { $count ->
    [one] { $count } destino
   *[other] { $count } destinos
} para «{ $query }»
search-regional-plans = Planes regionales · { $detail }

## Países y regiones

countries-title = Todos los países
country-local-heading = Planes para { $name }
country-no-local = No hay planes locales para { $name }; los planes regionales y globales de abajo lo incluyen.
country-no-local-duration = Ningún plan local tiene esta duración.
country-covering-heading = Planes regionales y globales que incluyen { $name }
country-no-covering-duration = Ningún plan regional o global tiene esta duración.
country-no-covering = Ahora mismo ningún plan regional o global incluye { $name }.
regions-title = Planes regionales y globales
regions-lead = Una sola eSIM para varios países.
regions-none = Ahora mismo no hay planes regionales disponibles.
region-lead = Una sola eSIM para toda la región. Incluye { $count ->
    [one] { $count } país
   *[other] { $count } países
}.
region-plans-heading = Planes regionales para { $name }
region-no-plans-duration = Ningún plan regional tiene esta duración.
region-no-plans = Ahora mismo no hay ningún plan regional a la venta para { $name }. Los países de abajo pueden tener planes propios.
region-one-country = ¿Te quedas en un solo país? Su página muestra los planes solo para ese país.

## Página del plan

plan-lead-local = eSIM local para { $name }
plan-lead-regional = eSIM regional para { $name }. Incluye { $count ->
    [one] { $count } país
   *[other] { $count } países
}.
plan-lead-global = eSIM global. Incluye { $count ->
    [one] { $count } país
   *[other] { $count } países
}.
temporarily-unavailable = No disponible temporalmente
plan-buy = Comprar esta eSIM
plan-price = Precio
plan-price-terms = Pago único en dólares estadounidenses. El precio puede cambiar hasta que pagues.
plan-price-terms-daily = Pago único en dólares estadounidenses, { $note } ({ $per_day }). El precio puede cambiar hasta que pagues.
plan-paused = Esta eSIM no está disponible temporalmente: ahora mismo no aceptamos pedidos nuevos. No se puede cobrar nada. Vuelve a intentarlo más tarde.
form-problem = Hay un problema
form-problems = { $count ->
    [one] Hay un problema
   *[other] Hay { $count } problemas
}
form-error-prefix = Error:
plan-email-label = Correo para tu eSIM
plan-email-hint = Te enviamos aquí el enlace a tu eSIM. Revísalo bien.
plan-confirm-device-html = Mi teléfono admite eSIM y no está bloqueado por un operador (<a href="/help/compatibility">cómo comprobarlo</a>)
plan-continue = Continuar al pago · { $price }
plan-not-online = Este plan no se puede comprar en línea.
plan-not-on-sale = Este plan no está a la venta. No se puede comprar aquí.
plan-details = Detalles del plan
plan-data = Datos
plan-daily-renews = el saldo se renueva cada día; los datos no usados no se acumulan
plan-validity = Validez
plan-fair-use = Uso razonable
plan-network-type = Tipo de red
plan-networks = Redes
plan-check-phone-html = Antes de comprar, comprueba que <a href="/help/compatibility">tu teléfono admite eSIM y no está bloqueado por un operador</a>.

## Pago

form-expired = Este formulario ha caducado. Vuelve atrás, recarga la página e inténtalo de nuevo.
checkout-too-many = Demasiados intentos de pago desde tu conexión. Espera un minuto y vuelve a enviar el formulario.
checkout-email-invalid = Escribe la dirección de correo a la que debemos enviar tu eSIM, como nombre@example.com.
checkout-email-suggestion = ¿Querías decir { $email }?
checkout-email-use = Usar { $email }
checkout-email-keep = O mantén { $email }: continúa con el botón de abajo.
checkout-confirm-device = Confirma que tu teléfono admite eSIM y no está bloqueado por un operador.
checkout-price-not-number = El precio del formulario no es un número.
problem-gone-title = Este plan ya no está disponible
problem-gone = Nuestro proveedor acaba de dejar de vender este plan. No se ha cobrado nada. Estos planes cubren el mismo destino:
problem-price-title = El precio ha cambiado
problem-price = El precio de este plan es ahora { $price }. No se ha cobrado nada. Continúa si todavía lo quieres.
problem-not-sellable-title = Este plan no se puede comprar en línea
problem-not-sellable = Ahora mismo este plan no se puede pagar en línea. No se ha cobrado nada.
problem-wallet-short = Ahora mismo no podemos vender este plan. No se ha cobrado nada. Vuelve a intentarlo más tarde.
problem-sales-held = Ahora mismo no podemos aceptar pedidos mientras confirmamos nuestra cuenta con el proveedor. No se ha cobrado nada. Vuelve a intentarlo en unos minutos.
problem-continue-at = Continuar por { $price }
problem-back-to-plan = Volver al plan
problem-all-plans-for = Todos los planes para { $name }

## Ayuda

help-compatibility-title = ¿Mi teléfono admite eSIM?
help-installation-title = Cómo se instala
help-refunds-title = Cómo funcionan los reembolsos
help-write-to-html = Escríbenos a <a href="mailto:{ $address }">{ $address }</a> o pregunta al fabricante de tu teléfono antes de comprar.
compat-intro-html = Una eSIM solo funciona en un teléfono que admite eSIM <strong>y</strong> no está bloqueado por un operador. Comprueba ambas cosas antes de comprar: una vez instalada, una eSIM no se puede pasar a otro teléfono.
compat-iphone-1-html = Abre <strong>Ajustes → General → Información</strong>.
compat-iphone-2-html = Busca <strong>SIM digital</strong> o <strong>SIM disponible</strong>: si aparece, tu iPhone admite eSIM (iPhone XS, XR y posteriores).
compat-iphone-3-html = En <strong>Bloqueo del operador</strong> debe poner <strong>Sin restricciones de SIM</strong>.
compat-android-1-html = Abre <strong>Ajustes → Redes e Internet → SIMs</strong> (o <strong>Conexiones → Administrador de SIM</strong> en Samsung).
compat-android-2-html = Si ves <strong>Añadir eSIM</strong> o <strong>Descargar una SIM</strong>, tu teléfono admite eSIM.
compat-android-3-html = Marca <code>*#06#</code>: si aparece una línea llamada <strong>EID</strong>, también admite eSIM.
compat-android-4 = Para comprobar el bloqueo del operador, pon una tarjeta SIM de otro operador o pregunta al operador que te vendió el teléfono.
compat-unsure = ¿Aún tienes dudas?
compat-ask-maker = Pregunta al fabricante de tu teléfono o al operador que te lo vendió antes de comprar.
compat-contract-locked = Los teléfonos comprados a un operador con contrato suelen estar bloqueados.
install-step-1 = Cuando pagas, te enviamos por correo un enlace privado. No lo compartas: muestra tu eSIM.
install-step-2 = Cuándo instalarla depende del plan. Si la validez empieza al instalar la eSIM, instálala al llegar o justo antes de necesitarla. Si la validez empieza cuando la eSIM se conecta por primera vez a una red en el destino, puedes instalarla antes de viajar, mientras tengas wifi. La página del plan y la de tu pedido indican cuál es el caso.
install-step-3 = Abre el enlace en otra pantalla y escanea el código QR con la cámara del teléfono. Algunas eSIM también traen un botón de instalación: si tu página lo muestra, puedes abrir el enlace en el propio teléfono y pulsarlo. Si nada de eso funciona, introduce a mano la dirección SM-DP+ y el código de activación.
install-step-4 = Al llegar, activa la eSIM para los datos móviles y activa la itinerancia de datos en esa línea.
lost-email-html = ¿Has perdido el correo con tu enlace? <a href="/lost-link">Recibe los enlaces de tus pedidos por correo</a>.
install-do-not-delete-html = <strong>No borres la eSIM</strong> del teléfono antes de terminar con ella: una vez borrada, normalmente no se puede volver a instalar.
refunds-intro = Compramos tu eSIM a nuestro proveedor solo después de confirmar tu pago. Qué pasa si algo sale mal:
refunds-not-issued-html = <strong>El proveedor informa de que no se pudo emitir tu eSIM.</strong> Recibes automáticamente el reembolso completo en tu medio de pago original y un correo que lo confirma.
refunds-refused-html = <strong>El proveedor rechaza el pedido</strong> (por ejemplo, el plan se retiró un momento antes).
refunds-refused-auto = Recibes automáticamente el reembolso completo.
refunds-refused-manual = Revisamos el pedido y te reembolsamos el importe completo.
refunds-unavailable-html = <strong>Nuestro proveedor no está disponible durante un rato o nuestra cuenta con él necesita atención.</strong> Tu pedido espera y se completa en cuanto es posible; no se te cobra dos veces ni recibes dos eSIM. Si decidimos no esperar, te reembolsamos el importe completo.
refunds-every-email = Cada correo de reembolso indica cuál de estos casos se ha dado. El reembolso vuelve a la tarjeta o cuenta con la que pagaste; según tu banco, puede tardar entre 5 y 10 días hábiles en aparecer.
refunds-broken-write-html = Si recibiste tu eSIM pero no funciona, escríbenos a <a href="mailto:{ $address }">{ $address }</a> (o responde al correo de tu pedido) con el enlace privado de ese correo antes de borrar la eSIM, y lo investigaremos.
refunds-broken-keep = Si recibiste tu eSIM pero no funciona, no la borres y guarda el enlace privado de tu correo: es la forma de encontrar tu pedido.
refunds-installed = Una eSIM que se ha instalado o usado no se puede reembolsar.

## ¿Has perdido tu enlace?

lost-link-title = ¿Has perdido tu enlace?
lost-link-sent = Si se pagaron pedidos con esa dirección de correo, le estamos enviando ahora sus enlaces privados. Puede tardar unos minutos; revisa también la carpeta de spam.
lost-link-sent-limit = Enviamos este correo como máximo una vez cada 15 minutos por dirección, con enlaces nuevos a tus últimos pedidos. Los enlaces de tus correos anteriores siguen funcionando salvo que la tienda los haya anulado.
lost-link-sent-retry-html = ¿No ha llegado nada? Comprueba que escribiste la dirección que usaste al pagar y <a href="/lost-link">vuelve a intentarlo</a> un poco más tarde.
lost-link-intro = La página de tu pedido se abre con el enlace privado de los correos que te enviamos sobre él. Escribe la dirección de correo que usaste al pagar y te enviaremos enlaces nuevos a tus pedidos.
lost-link-email-label = Correo usado al pagar
lost-link-email-hint = Solo escribimos a esta dirección, y solo si tiene pedidos con nosotros.
lost-link-submit = Enviarme los enlaces de mis pedidos
lost-link-too-many = Demasiadas solicitudes desde tu conexión. Espera 15 minutos y vuelve a enviar el formulario.
lost-link-email-invalid = Escribe la dirección de correo que usaste al pagar, como nombre@example.com.

## Errores

error-not-found-title = Página no encontrada
error-not-found = No hay nada en esta dirección. Revisa el enlace o vuelve a empezar desde la página de inicio.
error-order-not-found-title = Abre tu pedido desde tu correo
error-order-not-found = La página de tu pedido se abre con el enlace privado de los correos que te enviamos sobre él («Ver tu pedido» o «Instalar tu eSIM»). En otro dispositivo, como un ordenador desde el que escanear el código QR, abre allí ese correo y usa su enlace. Los correos los envía esta tienda una vez confirmado tu pago; si no encuentras ninguno, revisa la carpeta de spam. Los enlaces dejan de funcionar un tiempo después de completarse el pedido, o antes si la tienda los anula por tu seguridad: pide enlaces nuevos por correo aquí abajo.
error-bad-request-title = No ha funcionado
error-forbidden-title = No permitido
error-unauthorized = Esta dirección necesita el token de acceso del operador.
error-conflict-title = Ahora mismo no se puede hacer
error-too-many-title = Demasiadas solicitudes
error-too-many = Espera un momento y vuelve a intentarlo.
error-unavailable = La tienda no puede responder ahora mismo. Vuelve a intentarlo en un minuto.
error-internal-title = Algo ha salido mal
error-internal = Un error inesperado ha detenido esta solicitud. Ha quedado registrado; indica el identificador de la solicitud si te pones en contacto con nosotros.
error-unstorable-text = Parte de la información enviada contiene un carácter que no se puede usar (un carácter nulo). Quítalo e inténtalo de nuevo.
error-bad-input = Parte de la información enviada no era válida. Vuelve atrás e inténtalo de nuevo.
error-lost-link = ¿Has perdido tu enlace? Recíbelo por correo
error-home = Ir a la página de inicio
error-code = Error { $status }
error-request-id = id. de solicitud

## Promotion codes and display currencies
promo-field-label = Código promocional (opcional)
promo-bad-format = Un código promocional tiene de 3 a 32 letras y cifras. Revísalo o deja el campo vacío.
promo-unknown = Este código promocional no existe o ya no se ofrece.
promo-not-yet = Este código promocional todavía no es válido.
promo-expired = Este código promocional ha caducado.
promo-other-plans = Este código promocional no es válido para este plan.
promo-used-up = Este código promocional ya se ha agotado.
promo-not-for-this-order = Este código promocional no se puede usar para este pedido.
promo-held = Otros pagos pendientes desde tu conexión ya reservan este código promocional. Paga uno de ellos o vuelve a intentarlo dentro de 30 minutos.
promo-problem-title = No se puede usar este código promocional
promo-problem = { $reason } No se ha cobrado nada.
checkout-description-promo = { $plan } · código promocional { $code }
# A price in another currency, shown beside the US dollar price only (never charged).
display-price = ≈ { $amount }
display-price-rate-of = cambio del { $date }

## Plan choice: sections of a plan list, day pickers, breadcrumbs, the global plans
section-daily = Planes diarios ({ $count })
section-total = Planes de datos totales ({ $count })
section-regional = Planes regionales ({ $count })
section-global = Planes globales ({ $count })
list-show-more = Mostrar { $count } más
choose-days = Días
choose-submit = Ver este plan
plan-durations = Otras duraciones
crumb-home = Inicio
crumb-label = Ruta de navegación
global-title = Planes globales
global-lead = Una eSIM para viajar por todo el mundo.
global-none = Ahora no hay ningún plan global a la venta.
regions-global-link = Planes globales: una eSIM para todo el mundo

# What search results show of a page (its <meta name="description">) and a plan page's title.
meta-description = Planes de datos eSIM para viajeros: compra en línea, recibe la eSIM por correo en minutos e instálala con un código QR o con un toque.
plan-description = eSIM para { $name }: { $allowance }, { $price }. Por correo en minutos; se instala con un código QR o con un toque.
plan-search-title = eSIM para { $name } — { $allowance }, { $price }
# The price line of a country's or region's share card (the picture of a shared link).
share-card-from = Desde { $price }
listing-description = Planes eSIM para { $name }: { $count ->
    [one] 1 plan
   *[other] { $count } planes
} desde { $price }. Por correo en minutos; se instala con un código QR o con un toque.

## Legal pages: the footer's links and the page around the owner's text
nav-legal = Legal
legal-terms-title = Términos y condiciones
legal-privacy-title = Aviso de privacidad
legal-refunds-title = Reembolsos y desistimiento
legal-imprint-title = Aviso legal
legal-draft-banner = Borrador: el responsable de la tienda aún no ha revisado este texto.
legal-updated = Última modificación: { $date }.
refunds-policy-link-html = Las normas vinculantes, incluido tu derecho de desistimiento, están en nuestra <a href="/refunds-and-withdrawal">política de reembolso y desistimiento</a>.

## Checkout: consent to the terms and the withdrawal notice for digital content
checkout-accept-terms-html = Acepto los <a href="/terms">términos y condiciones</a>.
checkout-withdrawal-notice = Una eSIM es contenido digital: pierdes tu derecho de desistimiento una vez entregada.
checkout-accept-terms = Acepta los términos y condiciones para continuar.

my-esims-title = Mis eSIM
my-esims-signed-in = Has entrado como { $email }.
my-esims-none = Todavía no se ha comprado ninguna eSIM con esta dirección de correo.
my-esims-order-number = Número de pedido
my-esims-bought = Comprada el
my-esims-open = Abrir pedido e instalar
my-esims-pages = Más eSIM
my-esims-newest = eSIM más recientes
my-esims-older = eSIM anteriores
my-esims-sign-out = Cerrar sesión
my-esims-sign-out-everywhere = Cerrar sesión en todas partes
my-esims-sign-out-everywhere-hint = Cierra la sesión en todos los navegadores y teléfonos donde entraste con esta dirección de correo.
my-esims-link-used = Este enlace de acceso ya no funciona: cada enlace funciona una vez, durante 30 minutos. Escribe tu dirección de correo y te enviaremos uno nuevo.
my-esims-sign-in-intro = Inicia sesión en este dispositivo para ver todas las eSIM compradas con tu dirección de correo.
my-esims-sign-in = Iniciar sesión en Mis eSIM
lost-link-my-esims = El correo también trae un enlace que te da acceso a Mis eSIM, donde aparecen todas tus eSIM.
checkout-quantity-label = Número de eSIM
checkout-quantity-not-number = Elige el número de eSIM de la lista.
checkout-quantity-range = Elige entre 1 y { $max } eSIM.
checkout-total = Total:
checkout-travellers-label = ¿Para quién es cada eSIM? (opcional)
checkout-travellers-hint = Un nombre distingue las eSIM en la página de tu pedido. Quien tenga un correo recibe su propio enlace para instalar su eSIM. Las filas que superen el número de eSIM no se tienen en cuenta.
checkout-traveller-legend = eSIM { $n }
checkout-traveller-name = Nombre
checkout-traveller-email = Correo para su propio enlace
checkout-traveller-name-invalid = El nombre de la eSIM { $n } es demasiado largo: como máximo { $max } caracteres.
checkout-traveller-email-invalid = El correo de la eSIM { $n } no es una dirección válida, como ben@example.com.
promo-too-many-esims = Este código promocional cubre menos eSIM de las que elegiste. Elige menos eSIM o quita el código.
checkout-several-label = Varias eSIM, una por viajero (opcional)
