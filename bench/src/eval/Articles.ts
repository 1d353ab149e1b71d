/**
 * The evaluation's knowledge base: help-centre articles of "Lumen", an online shop for lamps and home electronics,
 * each in English and French. Written for the evaluation. The first sentence of each translation is its key
 * sentence: an answer drawn from the article must contain it.
 */
export interface Translation {
  readonly title: string
  /** The sentence an answer from this article must contain. */
  readonly key: string
  /** The rest of the article. */
  readonly rest: string
}

export interface EvalArticle {
  readonly id: string
  readonly en: Translation
  readonly fr: Translation
}

const t = (title: string, key: string, rest: string): Translation => ({ title, key, rest })

export const ARTICLES: ReadonlyArray<EvalArticle> = [
  {
    id: "shipping-times",
    en: t(
      "Delivery times",
      "Standard delivery within the country takes two to four working days.",
      "Express delivery arrives the next working day when you order before 2 pm."
    ),
    fr: t(
      "Délais de livraison",
      "La livraison standard dans le pays prend de deux à quatre jours ouvrés.",
      "La livraison express arrive le jour ouvré suivant pour toute commande passée avant 14 h."
    )
  },
  {
    id: "shipping-costs",
    en: t(
      "Shipping costs",
      "Shipping is free on orders over 50 euros; below that it costs 4.90 euros.",
      "Express delivery costs 9.90 euros whatever the amount of the order."
    ),
    fr: t(
      "Frais de port",
      "Les frais de port sont offerts dès 50 euros d'achat ; en dessous, ils coûtent 4,90 euros.",
      "La livraison express coûte 9,90 euros quel que soit le montant."
    )
  },
  {
    id: "international",
    en: t(
      "Shipping abroad",
      "We deliver to every country of the European Union, to Switzerland and to the United Kingdom.",
      "Parcels outside the European Union may be charged import duties by the customs of the destination."
    ),
    fr: t(
      "Livraison à l'étranger",
      "Nous livrons dans tous les pays de l'Union européenne, en Suisse et au Royaume-Uni.",
      "Hors Union européenne, la douane du pays de destination peut facturer des droits d'importation."
    )
  },
  {
    id: "tracking",
    en: t(
      "Tracking a parcel",
      "The tracking number is in the shipping confirmation email, with a link to the carrier's page.",
      "Tracking starts a few hours after the parcel leaves our warehouse."
    ),
    fr: t(
      "Suivre un colis",
      "Le numéro de suivi figure dans l'e-mail de confirmation d'expédition, avec un lien vers la page du transporteur.",
      "Le suivi démarre quelques heures après le départ du colis de notre entrepôt."
    )
  },
  {
    id: "change-address",
    en: t(
      "Changing the delivery address",
      "You can change the delivery address in your account until the order is shipped.",
      "Once the parcel has left, ask the carrier to redirect it from the tracking page."
    ),
    fr: t(
      "Modifier l'adresse de livraison",
      "Vous pouvez modifier l'adresse de livraison dans votre compte tant que la commande n'est pas expédiée.",
      "Une fois le colis parti, demandez au transporteur de le rediriger depuis la page de suivi."
    )
  },
  {
    id: "returns",
    en: t(
      "Returning an item",
      "You have 30 days from delivery to return an item in its original packaging.",
      "Print the prepaid return label from the Orders page of your account and drop the parcel at any post office."
    ),
    fr: t(
      "Retourner un article",
      "Vous disposez de 30 jours après la livraison pour retourner un article dans son emballage d'origine.",
      "Imprimez l'étiquette de retour prépayée depuis la page Commandes de votre compte et déposez le colis dans un bureau de poste."
    )
  },
  {
    id: "refunds",
    en: t(
      "Refunds",
      "Refunds are paid back to the original payment method within five working days of receiving the return.",
      "You receive an email as soon as the refund is issued."
    ),
    fr: t(
      "Remboursements",
      "Le remboursement est versé sur le moyen de paiement d'origine sous cinq jours ouvrés après réception du retour.",
      "Vous recevez un e-mail dès que le remboursement est émis."
    )
  },
  {
    id: "exchanges",
    en: t(
      "Exchanging an item",
      "To exchange an item for another colour or model, return it and place a new order.",
      "This is the quickest way: the new order ships at once and the return is refunded separately."
    ),
    fr: t(
      "Échanger un article",
      "Pour échanger un article contre une autre couleur ou un autre modèle, retournez-le et passez une nouvelle commande.",
      "C'est le plus rapide : la nouvelle commande part aussitôt et le retour est remboursé à part."
    )
  },
  {
    id: "damaged",
    en: t(
      "Damaged parcel",
      "If an item arrives broken, send us a photo within 48 hours and we ship a replacement free of cost.",
      "Keep the packaging until the replacement has arrived."
    ),
    fr: t(
      "Colis endommagé",
      "Si un article arrive cassé, envoyez-nous une photo sous 48 heures et nous expédions un remplacement sans frais.",
      "Gardez l'emballage jusqu'à l'arrivée du remplacement."
    )
  },
  {
    id: "missing-item",
    en: t(
      "Missing item in a parcel",
      "Large orders are sometimes split into several parcels that arrive on different days.",
      "If an item is still missing after the last parcel arrived, contact us with your order number."
    ),
    fr: t(
      "Article manquant dans un colis",
      "Les grosses commandes sont parfois réparties en plusieurs colis qui arrivent à des jours différents.",
      "S'il manque encore un article après le dernier colis, contactez-nous avec votre numéro de commande."
    )
  },
  {
    id: "warranty",
    en: t(
      "Warranty",
      "Every lamp and device has a two-year warranty covering manufacturing defects.",
      "The warranty does not cover bulbs, which wear out with use."
    ),
    fr: t(
      "Garantie",
      "Chaque lampe et chaque appareil bénéficie d'une garantie de deux ans contre les défauts de fabrication.",
      "La garantie ne couvre pas les ampoules, qui s'usent avec le temps."
    )
  },
  {
    id: "payment-methods",
    en: t(
      "Payment methods",
      "We accept Visa, Mastercard, American Express, PayPal and bank transfer.",
      "Cash on delivery is not offered."
    ),
    fr: t(
      "Moyens de paiement",
      "Nous acceptons Visa, Mastercard, American Express, PayPal et le virement bancaire.",
      "Le paiement à la livraison n'est pas proposé."
    )
  },
  {
    id: "instalments",
    en: t(
      "Paying in instalments",
      "Orders over 200 euros can be paid in three monthly instalments without fees.",
      "Choose the instalment option on the payment page; a card is required."
    ),
    fr: t(
      "Paiement en plusieurs fois",
      "Les commandes de plus de 200 euros peuvent être réglées en trois mensualités sans frais.",
      "Choisissez l'option de paiement en trois fois sur la page de paiement ; une carte est nécessaire."
    )
  },
  {
    id: "invoices",
    en: t(
      "Invoices",
      "Invoices are available as PDF files on the Orders page of your account.",
      "Business customers can add their VAT number before ordering so that it appears on the invoice."
    ),
    fr: t(
      "Factures",
      "Les factures sont disponibles en PDF sur la page Commandes de votre compte.",
      "Les clients professionnels peuvent ajouter leur numéro de TVA avant de commander pour qu'il figure sur la facture."
    )
  },
  {
    id: "gift-cards",
    en: t(
      "Gift cards",
      "Gift cards are valid for one year and can be used over several orders.",
      "They cannot be exchanged for cash."
    ),
    fr: t(
      "Cartes cadeaux",
      "Les cartes cadeaux sont valables un an et peuvent servir pour plusieurs commandes.",
      "Elles ne peuvent pas être échangées contre de l'argent."
    )
  },
  {
    id: "discount-codes",
    en: t(
      "Discount codes",
      "Only one discount code can be used per order, entered in the basket before payment.",
      "Codes cannot be added to an order that has already been paid."
    ),
    fr: t(
      "Codes de réduction",
      "Un seul code de réduction peut être utilisé par commande, à saisir dans le panier avant le paiement.",
      "Un code ne peut pas être ajouté à une commande déjà payée."
    )
  },
  {
    id: "password-reset",
    en: t(
      "Resetting your password",
      "Click Forgot password on the sign-in page and we email you a link that works for one hour.",
      "Check your spam folder if the email does not arrive within a few minutes."
    ),
    fr: t(
      "Réinitialiser le mot de passe",
      "Cliquez sur Mot de passe oublié sur la page de connexion et nous vous envoyons un lien valable une heure.",
      "Vérifiez vos courriers indésirables si l'e-mail n'arrive pas dans les minutes qui suivent."
    )
  },
  {
    id: "two-factor",
    en: t(
      "Two-step verification",
      "Turn on two-step verification under Security in your account settings with an authenticator app.",
      "Keep the recovery codes shown at setup in a safe place."
    ),
    fr: t(
      "Validation en deux étapes",
      "Activez la validation en deux étapes dans Sécurité des paramètres du compte avec une application d'authentification.",
      "Conservez en lieu sûr les codes de secours affichés lors de l'activation."
    )
  },
  {
    id: "change-email",
    en: t(
      "Changing your email address",
      "You can change the email address of your account under Profile; we confirm it by sending a code to the new address.",
      "Your order history stays with the account."
    ),
    fr: t(
      "Changer d'adresse e-mail",
      "Vous pouvez changer l'adresse e-mail du compte dans Profil ; nous la confirmons par un code envoyé à la nouvelle adresse.",
      "L'historique des commandes reste attaché au compte."
    )
  },
  {
    id: "delete-account",
    en: t(
      "Deleting your account",
      "Deleting your account erases your personal data within 30 days, except invoices that the law requires us to keep.",
      "Open Privacy in your account settings and choose Delete account."
    ),
    fr: t(
      "Supprimer son compte",
      "La suppression du compte efface vos données personnelles sous 30 jours, sauf les factures que la loi nous oblige à garder.",
      "Ouvrez Confidentialité dans les paramètres du compte et choisissez Supprimer le compte."
    )
  },
  {
    id: "data-export",
    en: t(
      "Downloading your data",
      "You can download all your personal data as a ZIP archive from the Privacy page.",
      "The archive is ready within 24 hours and we email you when it is."
    ),
    fr: t(
      "Télécharger vos données",
      "Vous pouvez télécharger toutes vos données personnelles sous forme d'archive ZIP depuis la page Confidentialité.",
      "L'archive est prête sous 24 heures et nous vous prévenons par e-mail."
    )
  },
  {
    id: "newsletter",
    en: t(
      "Newsletter",
      "Every newsletter has an unsubscribe link at the bottom, which stops it at once.",
      "You can also turn it off under Notifications in your account."
    ),
    fr: t(
      "Lettre d'information",
      "Chaque lettre d'information contient en bas un lien de désabonnement qui l'arrête aussitôt.",
      "Vous pouvez aussi la désactiver dans Notifications de votre compte."
    )
  },
  {
    id: "loyalty",
    en: t(
      "Loyalty points",
      "Each euro spent earns one loyalty point, and 100 points give a 5 euro voucher.",
      "Points expire two years after they were earned."
    ),
    fr: t(
      "Points de fidélité",
      "Chaque euro dépensé rapporte un point de fidélité, et 100 points donnent un bon de 5 euros.",
      "Les points expirent deux ans après avoir été gagnés."
    )
  },
  {
    id: "store-pickup",
    en: t(
      "Click and collect",
      "You can collect your order free of cost at our Lyon showroom two hours after ordering.",
      "Bring the order confirmation and an identity document."
    ),
    fr: t(
      "Retrait en magasin",
      "Vous pouvez retirer votre commande gratuitement dans notre salle d'exposition de Lyon deux heures après l'achat.",
      "Munissez-vous de la confirmation de commande et d'une pièce d'identité."
    )
  },
  {
    id: "pre-orders",
    en: t(
      "Pre-orders",
      "A pre-ordered item is charged only when it ships.",
      "The product page shows the expected shipping date."
    ),
    fr: t(
      "Précommandes",
      "Un article précommandé n'est débité qu'au moment de son expédition.",
      "La page du produit indique la date d'expédition prévue."
    )
  },
  {
    id: "stock-alerts",
    en: t(
      "Out of stock",
      "Click Notify me on the product page and we email you as soon as the item is back in stock.",
      "Restocking usually takes two to three weeks."
    ),
    fr: t(
      "Rupture de stock",
      "Cliquez sur M'avertir sur la page du produit et nous vous écrivons dès que l'article est de nouveau disponible.",
      "Le réapprovisionnement prend en général deux à trois semaines."
    )
  },
  {
    id: "price-match",
    en: t(
      "Price changes",
      "If the price of an item drops within 14 days of your order, we refund the difference on request.",
      "This does not apply to flash sales."
    ),
    fr: t(
      "Baisse de prix",
      "Si le prix d'un article baisse dans les 14 jours suivant votre commande, nous remboursons la différence sur demande.",
      "Cela ne s'applique pas aux ventes flash."
    )
  },
  {
    id: "bulbs",
    en: t(
      "Choosing a bulb",
      "All our lamps take E27 or GU10 bulbs; the product page names the socket.",
      "We recommend LED bulbs of at most 10 watts for shades made of fabric."
    ),
    fr: t(
      "Choisir une ampoule",
      "Toutes nos lampes utilisent des ampoules E27 ou GU10 ; la page du produit indique le culot.",
      "Nous conseillons des ampoules LED de 10 watts au plus pour les abat-jour en tissu."
    )
  },
  {
    id: "smart-setup",
    en: t(
      "Setting up a smart lamp",
      "Smart lamps connect to 2.4 GHz Wi-Fi networks through the Lumen Home app.",
      "Hold the switch for five seconds to put the lamp in pairing mode."
    ),
    fr: t(
      "Installer une lampe connectée",
      "Les lampes connectées se relient aux réseaux Wi-Fi 2,4 GHz via l'application Lumen Home.",
      "Maintenez l'interrupteur cinq secondes pour passer la lampe en mode appairage."
    )
  },
  {
    id: "business",
    en: t(
      "Business accounts",
      "Companies can open a business account to pay by invoice within 30 days.",
      "Apply from the Business page with your company registration number."
    ),
    fr: t(
      "Comptes professionnels",
      "Les entreprises peuvent ouvrir un compte professionnel pour payer sur facture à 30 jours.",
      "Faites la demande depuis la page Professionnels avec votre numéro d'immatriculation."
    )
  },
  {
    id: "student",
    en: t(
      "Student discount",
      "Students get 10 percent off with a valid student card verified through our partner.",
      "The discount applies once per month."
    ),
    fr: t(
      "Réduction étudiante",
      "Les étudiants bénéficient de 10 pour cent de remise avec une carte étudiante valide vérifiée par notre partenaire.",
      "La remise s'applique une fois par mois."
    )
  },
  {
    id: "cancel-order",
    en: t(
      "Cancelling an order",
      "An order can be cancelled from your account as long as its status is Processing.",
      "After that, refuse the parcel or return it within 30 days."
    ),
    fr: t(
      "Annuler une commande",
      "Une commande peut être annulée depuis votre compte tant que son statut est En préparation.",
      "Ensuite, refusez le colis ou retournez-le sous 30 jours."
    )
  }
]
