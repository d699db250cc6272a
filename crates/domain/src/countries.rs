//! Country names for codes upstream's `/countries` does not name.
//!
//! `GET /countries` lists only countries with local plans (spec 2.2), yet regional and global
//! plans cover many more, by code alone. This table names every ISO 3166-1 alpha-2 code in
//! short, common English ("Macao", "Côte d'Ivoire", "South Korea") so every covered country
//! can be shown, listed and searched by name. Upstream's own name wins where it has one.
//!
//! Spanish and German names, and the names of continents and subregions, come from the
//! Unicode CLDR by way of the generated [`super::country_names`] (`scripts/cldr-names`).

use super::country_names;
use super::plan::search_key;
use crate::i18n::Lang;

/// Every ISO 3166-1 alpha-2 code with its English short name, sorted by code.
pub const ISO_3166_1: [(&str, &str); 249] = [
    ("AD", "Andorra"),
    ("AE", "United Arab Emirates"),
    ("AF", "Afghanistan"),
    ("AG", "Antigua and Barbuda"),
    ("AI", "Anguilla"),
    ("AL", "Albania"),
    ("AM", "Armenia"),
    ("AO", "Angola"),
    ("AQ", "Antarctica"),
    ("AR", "Argentina"),
    ("AS", "American Samoa"),
    ("AT", "Austria"),
    ("AU", "Australia"),
    ("AW", "Aruba"),
    ("AX", "Åland Islands"),
    ("AZ", "Azerbaijan"),
    ("BA", "Bosnia and Herzegovina"),
    ("BB", "Barbados"),
    ("BD", "Bangladesh"),
    ("BE", "Belgium"),
    ("BF", "Burkina Faso"),
    ("BG", "Bulgaria"),
    ("BH", "Bahrain"),
    ("BI", "Burundi"),
    ("BJ", "Benin"),
    ("BL", "Saint Barthélemy"),
    ("BM", "Bermuda"),
    ("BN", "Brunei"),
    ("BO", "Bolivia"),
    ("BQ", "Caribbean Netherlands"),
    ("BR", "Brazil"),
    ("BS", "Bahamas"),
    ("BT", "Bhutan"),
    ("BV", "Bouvet Island"),
    ("BW", "Botswana"),
    ("BY", "Belarus"),
    ("BZ", "Belize"),
    ("CA", "Canada"),
    ("CC", "Cocos (Keeling) Islands"),
    ("CD", "DR Congo"),
    ("CF", "Central African Republic"),
    ("CG", "Congo"),
    ("CH", "Switzerland"),
    ("CI", "Côte d'Ivoire"),
    ("CK", "Cook Islands"),
    ("CL", "Chile"),
    ("CM", "Cameroon"),
    ("CN", "China"),
    ("CO", "Colombia"),
    ("CR", "Costa Rica"),
    ("CU", "Cuba"),
    ("CV", "Cape Verde"),
    ("CW", "Curaçao"),
    ("CX", "Christmas Island"),
    ("CY", "Cyprus"),
    ("CZ", "Czechia"),
    ("DE", "Germany"),
    ("DJ", "Djibouti"),
    ("DK", "Denmark"),
    ("DM", "Dominica"),
    ("DO", "Dominican Republic"),
    ("DZ", "Algeria"),
    ("EC", "Ecuador"),
    ("EE", "Estonia"),
    ("EG", "Egypt"),
    ("EH", "Western Sahara"),
    ("ER", "Eritrea"),
    ("ES", "Spain"),
    ("ET", "Ethiopia"),
    ("FI", "Finland"),
    ("FJ", "Fiji"),
    ("FK", "Falkland Islands"),
    ("FM", "Micronesia"),
    ("FO", "Faroe Islands"),
    ("FR", "France"),
    ("GA", "Gabon"),
    ("GB", "United Kingdom"),
    ("GD", "Grenada"),
    ("GE", "Georgia"),
    ("GF", "French Guiana"),
    ("GG", "Guernsey"),
    ("GH", "Ghana"),
    ("GI", "Gibraltar"),
    ("GL", "Greenland"),
    ("GM", "Gambia"),
    ("GN", "Guinea"),
    ("GP", "Guadeloupe"),
    ("GQ", "Equatorial Guinea"),
    ("GR", "Greece"),
    ("GS", "South Georgia and the South Sandwich Islands"),
    ("GT", "Guatemala"),
    ("GU", "Guam"),
    ("GW", "Guinea-Bissau"),
    ("GY", "Guyana"),
    ("HK", "Hong Kong"),
    ("HM", "Heard Island and McDonald Islands"),
    ("HN", "Honduras"),
    ("HR", "Croatia"),
    ("HT", "Haiti"),
    ("HU", "Hungary"),
    ("ID", "Indonesia"),
    ("IE", "Ireland"),
    ("IL", "Israel"),
    ("IM", "Isle of Man"),
    ("IN", "India"),
    ("IO", "British Indian Ocean Territory"),
    ("IQ", "Iraq"),
    ("IR", "Iran"),
    ("IS", "Iceland"),
    ("IT", "Italy"),
    ("JE", "Jersey"),
    ("JM", "Jamaica"),
    ("JO", "Jordan"),
    ("JP", "Japan"),
    ("KE", "Kenya"),
    ("KG", "Kyrgyzstan"),
    ("KH", "Cambodia"),
    ("KI", "Kiribati"),
    ("KM", "Comoros"),
    ("KN", "Saint Kitts and Nevis"),
    ("KP", "North Korea"),
    ("KR", "South Korea"),
    ("KW", "Kuwait"),
    ("KY", "Cayman Islands"),
    ("KZ", "Kazakhstan"),
    ("LA", "Laos"),
    ("LB", "Lebanon"),
    ("LC", "Saint Lucia"),
    ("LI", "Liechtenstein"),
    ("LK", "Sri Lanka"),
    ("LR", "Liberia"),
    ("LS", "Lesotho"),
    ("LT", "Lithuania"),
    ("LU", "Luxembourg"),
    ("LV", "Latvia"),
    ("LY", "Libya"),
    ("MA", "Morocco"),
    ("MC", "Monaco"),
    ("MD", "Moldova"),
    ("ME", "Montenegro"),
    ("MF", "Saint Martin"),
    ("MG", "Madagascar"),
    ("MH", "Marshall Islands"),
    ("MK", "North Macedonia"),
    ("ML", "Mali"),
    ("MM", "Myanmar"),
    ("MN", "Mongolia"),
    ("MO", "Macao"),
    ("MP", "Northern Mariana Islands"),
    ("MQ", "Martinique"),
    ("MR", "Mauritania"),
    ("MS", "Montserrat"),
    ("MT", "Malta"),
    ("MU", "Mauritius"),
    ("MV", "Maldives"),
    ("MW", "Malawi"),
    ("MX", "Mexico"),
    ("MY", "Malaysia"),
    ("MZ", "Mozambique"),
    ("NA", "Namibia"),
    ("NC", "New Caledonia"),
    ("NE", "Niger"),
    ("NF", "Norfolk Island"),
    ("NG", "Nigeria"),
    ("NI", "Nicaragua"),
    ("NL", "Netherlands"),
    ("NO", "Norway"),
    ("NP", "Nepal"),
    ("NR", "Nauru"),
    ("NU", "Niue"),
    ("NZ", "New Zealand"),
    ("OM", "Oman"),
    ("PA", "Panama"),
    ("PE", "Peru"),
    ("PF", "French Polynesia"),
    ("PG", "Papua New Guinea"),
    ("PH", "Philippines"),
    ("PK", "Pakistan"),
    ("PL", "Poland"),
    ("PM", "Saint Pierre and Miquelon"),
    ("PN", "Pitcairn Islands"),
    ("PR", "Puerto Rico"),
    ("PS", "Palestine"),
    ("PT", "Portugal"),
    ("PW", "Palau"),
    ("PY", "Paraguay"),
    ("QA", "Qatar"),
    ("RE", "Réunion"),
    ("RO", "Romania"),
    ("RS", "Serbia"),
    ("RU", "Russia"),
    ("RW", "Rwanda"),
    ("SA", "Saudi Arabia"),
    ("SB", "Solomon Islands"),
    ("SC", "Seychelles"),
    ("SD", "Sudan"),
    ("SE", "Sweden"),
    ("SG", "Singapore"),
    ("SH", "Saint Helena"),
    ("SI", "Slovenia"),
    ("SJ", "Svalbard and Jan Mayen"),
    ("SK", "Slovakia"),
    ("SL", "Sierra Leone"),
    ("SM", "San Marino"),
    ("SN", "Senegal"),
    ("SO", "Somalia"),
    ("SR", "Suriname"),
    ("SS", "South Sudan"),
    ("ST", "São Tomé and Príncipe"),
    ("SV", "El Salvador"),
    ("SX", "Sint Maarten"),
    ("SY", "Syria"),
    ("SZ", "Eswatini"),
    ("TC", "Turks and Caicos Islands"),
    ("TD", "Chad"),
    ("TF", "French Southern Territories"),
    ("TG", "Togo"),
    ("TH", "Thailand"),
    ("TJ", "Tajikistan"),
    ("TK", "Tokelau"),
    ("TL", "Timor-Leste"),
    ("TM", "Turkmenistan"),
    ("TN", "Tunisia"),
    ("TO", "Tonga"),
    ("TR", "Türkiye"),
    ("TT", "Trinidad and Tobago"),
    ("TV", "Tuvalu"),
    ("TW", "Taiwan"),
    ("TZ", "Tanzania"),
    ("UA", "Ukraine"),
    ("UG", "Uganda"),
    ("UM", "U.S. Outlying Islands"),
    ("US", "United States"),
    ("UY", "Uruguay"),
    ("UZ", "Uzbekistan"),
    ("VA", "Vatican City"),
    ("VC", "Saint Vincent and the Grenadines"),
    ("VE", "Venezuela"),
    ("VG", "British Virgin Islands"),
    ("VI", "U.S. Virgin Islands"),
    ("VN", "Vietnam"),
    ("VU", "Vanuatu"),
    ("WF", "Wallis and Futuna"),
    ("WS", "Samoa"),
    ("YE", "Yemen"),
    ("YT", "Mayotte"),
    ("ZA", "South Africa"),
    ("ZM", "Zambia"),
    ("ZW", "Zimbabwe"),
];

/// The English short name of the country `code` (two letters, any case), if ISO assigns it.
pub fn name(code: &str) -> Option<&'static str> {
    let code = code.to_ascii_uppercase();
    ISO_3166_1
        .binary_search_by(|(c, _)| (*c).cmp(code.as_str()))
        .ok()
        .map(|i| ISO_3166_1[i].1)
}

/// The name of the country `code` (two letters, any case) in `lang`, if ISO assigns it:
/// English from [`ISO_3166_1`], Spanish and German from CLDR.
pub fn name_in(code: &str, lang: Lang) -> Option<&'static str> {
    let code = code.to_ascii_uppercase();
    let i = country_names::COUNTRIES
        .binary_search_by(|(c, _, _)| (*c).cmp(code.as_str()))
        .ok()?;
    let (_, es, de) = country_names::COUNTRIES[i];
    Some(match lang {
        Lang::En => ISO_3166_1[i].1,
        Lang::Es => es,
        Lang::De => de,
    })
}

/// The name in `lang` of an area upstream names in English ("Europe", "caribbean",
/// "Latin America"): a continent or subregion CLDR knows. `None` for a name CLDR does not
/// have ("Middle East"), which then stays as upstream gives it.
pub fn region_name_in(english: &str, lang: Lang) -> Option<&'static str> {
    let key = search_key(english.trim()).replace(['-', '_'], " ");
    let (en, es, de) = country_names::REGIONS
        .iter()
        .find(|(en, _, _)| search_key(en).replace('-', " ") == key)?;
    Some(match lang {
        Lang::En => en,
        Lang::Es => es,
        Lang::De => de,
    })
}

/// Other names people type for a country, as [`crate::plan::search_key`] folds them
/// (lower case, accents dropped): common English names, former names, constituent countries
/// and abbreviations, each with the code whose page answers it. Searching one of these finds
/// that country first, whatever name upstream gives it.
pub const ALIASES: &[(&str, &str)] = &[
    ("usa", "US"),
    ("us", "US"),
    ("u.s.", "US"),
    ("u.s.a.", "US"),
    ("united states", "US"),
    ("united states of america", "US"),
    ("america", "US"),
    ("uk", "GB"),
    ("u.k.", "GB"),
    ("britain", "GB"),
    ("great britain", "GB"),
    ("england", "GB"),
    ("scotland", "GB"),
    ("wales", "GB"),
    ("northern ireland", "GB"),
    ("turkey", "TR"),
    ("turkiye", "TR"),
    ("vietnam", "VN"),
    ("viet nam", "VN"),
    ("ivory coast", "CI"),
    ("cote d'ivoire", "CI"),
    ("cote divoire", "CI"),
    ("korea", "KR"),
    ("south korea", "KR"),
    ("republic of korea", "KR"),
    ("russia", "RU"),
    ("russian federation", "RU"),
    ("czechia", "CZ"),
    ("czech republic", "CZ"),
    ("holland", "NL"),
    ("the netherlands", "NL"),
    ("netherlands", "NL"),
    ("uae", "AE"),
    ("emirates", "AE"),
    ("dubai", "AE"),
    ("abu dhabi", "AE"),
    ("burma", "MM"),
    ("myanmar", "MM"),
    ("swaziland", "SZ"),
    ("eswatini", "SZ"),
    ("macedonia", "MK"),
    ("north macedonia", "MK"),
    ("cape verde", "CV"),
    ("cabo verde", "CV"),
    ("east timor", "TL"),
    ("timor-leste", "TL"),
    ("laos", "LA"),
    ("vatican", "VA"),
    ("holy see", "VA"),
    ("taiwan", "TW"),
    ("hong kong", "HK"),
    ("macau", "MO"),
    ("drc", "CD"),
    ("congo-kinshasa", "CD"),
    ("congo-brazzaville", "CG"),
    ("bosnia", "BA"),
    ("persia", "IR"),
    ("iran", "IR"),
    ("syria", "SY"),
    ("bali", "ID"),
    ("mainland china", "CN"),
    ("prc", "CN"),
    // What people call themselves or the country's things: "German" plans, "Japanese" SIM.
    ("american", "US"),
    ("americans", "US"),
    ("british", "GB"),
    ("english", "GB"),
    ("scottish", "GB"),
    ("welsh", "GB"),
    ("german", "DE"),
    ("japanese", "JP"),
    ("french", "FR"),
    ("spanish", "ES"),
    ("italian", "IT"),
    ("dutch", "NL"),
    ("swiss", "CH"),
    ("chinese", "CN"),
    ("korean", "KR"),
    ("thai", "TH"),
    ("mexican", "MX"),
    ("canadian", "CA"),
    ("australian", "AU"),
    ("brazilian", "BR"),
    ("turkish", "TR"),
    ("greek", "GR"),
    ("portuguese", "PT"),
    ("irish", "IE"),
    ("austrian", "AT"),
    ("polish", "PL"),
    ("vietnamese", "VN"),
    ("indonesian", "ID"),
    ("egyptian", "EG"),
    ("moroccan", "MA"),
    ("emirati", "AE"),
    ("croatian", "HR"),
    ("swedish", "SE"),
    ("norwegian", "NO"),
    ("danish", "DK"),
    ("finnish", "FI"),
    ("russian", "RU"),
    ("argentinian", "AR"),
    ("argentine", "AR"),
    ("peruvian", "PE"),
    ("colombian", "CO"),
    ("chilean", "CL"),
    ("filipino", "PH"),
    ("philippine", "PH"),
    ("malaysian", "MY"),
    ("singaporean", "SG"),
    ("icelandic", "IS"),
    ("hungarian", "HU"),
    ("czech", "CZ"),
    ("belgian", "BE"),
    ("cuban", "CU"),
];

/// [`ALIASES`] for Spanish: other names and demonyms as Spanish speakers type them.
pub const ALIASES_ES: &[(&str, &str)] = &[
    ("eeuu", "US"),
    ("ee.uu.", "US"),
    ("ee. uu.", "US"),
    ("estados unidos de america", "US"),
    ("inglaterra", "GB"),
    ("gran bretana", "GB"),
    ("escocia", "GB"),
    ("gales", "GB"),
    ("irlanda del norte", "GB"),
    ("holanda", "NL"),
    ("corea", "KR"),
    ("corea del sur", "KR"),
    ("emiratos", "AE"),
    ("birmania", "MM"),
    ("republica checa", "CZ"),
    ("suazilandia", "SZ"),
    ("costa de marfil", "CI"),
    ("timor oriental", "TL"),
    ("vaticano", "VA"),
    ("estadounidense", "US"),
    ("norteamericano", "US"),
    ("americano", "US"),
    ("britanico", "GB"),
    ("ingles", "GB"),
    ("escoces", "GB"),
    ("aleman", "DE"),
    ("japones", "JP"),
    ("frances", "FR"),
    ("espanol", "ES"),
    ("italiano", "IT"),
    ("holandes", "NL"),
    ("neerlandes", "NL"),
    ("suizo", "CH"),
    ("chino", "CN"),
    ("coreano", "KR"),
    ("tailandes", "TH"),
    ("mexicano", "MX"),
    ("canadiense", "CA"),
    ("australiano", "AU"),
    ("brasileno", "BR"),
    ("turco", "TR"),
    ("griego", "GR"),
    ("portugues", "PT"),
    ("irlandes", "IE"),
    ("austriaco", "AT"),
    ("polaco", "PL"),
    ("ruso", "RU"),
    ("vietnamita", "VN"),
    ("indonesio", "ID"),
    ("egipcio", "EG"),
    ("marroqui", "MA"),
    ("croata", "HR"),
    ("sueco", "SE"),
    ("noruego", "NO"),
    ("danes", "DK"),
    ("argentino", "AR"),
    ("peruano", "PE"),
    ("colombiano", "CO"),
    ("chileno", "CL"),
    ("cubano", "CU"),
    ("filipino", "PH"),
    ("islandes", "IS"),
];

/// [`ALIASES`] for German: other names, spellings without umlauts and demonyms.
pub const ALIASES_DE: &[(&str, &str)] = &[
    ("amerika", "US"),
    ("vereinigte staaten von amerika", "US"),
    ("grossbritannien", "GB"),
    ("grobritannien", "GB"),
    ("schottland", "GB"),
    ("nordirland", "GB"),
    ("korea", "KR"),
    ("suedkorea", "KR"),
    ("tuerkei", "TR"),
    ("tschechische republik", "CZ"),
    ("vae", "AE"),
    ("emirate", "AE"),
    ("birma", "MM"),
    ("oesterreich", "AT"),
    ("brd", "DE"),
    ("suedafrika", "ZA"),
    ("daenemark", "DK"),
    ("elfenbeinkuste", "CI"),
    ("elfenbeinkueste", "CI"),
    ("osttimor", "TL"),
    ("swasiland", "SZ"),
    ("vatikan", "VA"),
    ("deutsch", "DE"),
    ("amerikanisch", "US"),
    ("amerikaner", "US"),
    ("britisch", "GB"),
    ("englisch", "GB"),
    ("japanisch", "JP"),
    ("franzosisch", "FR"),
    ("franzoesisch", "FR"),
    ("spanisch", "ES"),
    ("italienisch", "IT"),
    ("niederlandisch", "NL"),
    ("niederlaendisch", "NL"),
    ("hollandisch", "NL"),
    ("hollaendisch", "NL"),
    ("schweizerisch", "CH"),
    ("chinesisch", "CN"),
    ("koreanisch", "KR"),
    ("thailandisch", "TH"),
    ("thailaendisch", "TH"),
    ("mexikanisch", "MX"),
    ("kanadisch", "CA"),
    ("australisch", "AU"),
    ("brasilianisch", "BR"),
    ("turkisch", "TR"),
    ("tuerkisch", "TR"),
    ("griechisch", "GR"),
    ("portugiesisch", "PT"),
    ("irisch", "IE"),
    ("osterreichisch", "AT"),
    ("oesterreichisch", "AT"),
    ("polnisch", "PL"),
    ("russisch", "RU"),
    ("agyptisch", "EG"),
    ("aegyptisch", "EG"),
    ("kroatisch", "HR"),
    ("schwedisch", "SE"),
    ("norwegisch", "NO"),
    ("danisch", "DK"),
    ("daenisch", "DK"),
    ("vietnamesisch", "VN"),
    ("indonesisch", "ID"),
];

/// Every other name of a country in every shop language, with the code it stands for. A
/// search in any language finds a country by any of them.
pub fn all_aliases() -> impl Iterator<Item = (&'static str, &'static str)> {
    ALIASES.iter().chain(ALIASES_ES).chain(ALIASES_DE).copied()
}

/// The code another name of a country stands for (`query` folded as by
/// [`crate::plan::search_key`]), if it is one of [`all_aliases`].
#[cfg(test)]
fn alias(query: &str) -> Option<&'static str> {
    all_aliases()
        .find(|(name, _)| *name == query)
        .map(|(_, code)| code)
}

/// Countries among the world's most visited by international tourists (UN Tourism's arrival
/// rankings, roughly most visited first): what "popular destinations" means for a travel eSIM
/// shop, which has no sales figures of its own to rank by.
pub const MOST_VISITED: [&str; 30] = [
    "FR", "ES", "US", "IT", "TR", "MX", "GB", "DE", "GR", "AT", "AE", "TH", "JP", "SA", "PT", "NL",
    "HR", "HK", "MY", "PL", "CA", "CN", "VN", "KR", "SG", "MA", "EG", "ID", "AU", "CH",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_unique_and_well_formed() {
        assert!(
            ISO_3166_1.windows(2).all(|w| w[0].0 < w[1].0),
            "sorted, no duplicates"
        );
        for (code, name) in ISO_3166_1 {
            assert!(
                code.len() == 2 && code.bytes().all(|b| b.is_ascii_uppercase()),
                "{code}"
            );
            assert!(!name.is_empty() && name.trim() == name, "{code}");
        }
        for code in MOST_VISITED {
            assert!(self::name(code).is_some(), "{code}");
        }
    }

    #[test]
    fn aliases_are_folded_unique_and_name_real_codes() {
        let all: Vec<(&str, &str)> = all_aliases().collect();
        for (i, (alias, code)) in all.iter().enumerate() {
            assert_eq!(crate::plan::search_key(alias), *alias, "{alias}");
            assert!(name(code).is_some(), "{alias} → {code}");
            // The same word in two languages must mean the same country.
            assert!(
                all[..i].iter().all(|(a, c)| a != alias || c == code),
                "{alias} twice"
            );
        }
        for table in [ALIASES, ALIASES_ES, ALIASES_DE] {
            for (i, (alias, _)) in table.iter().enumerate() {
                assert!(table[..i].iter().all(|(a, _)| a != alias), "{alias} twice");
            }
        }
        assert_eq!(alias("usa"), Some("US"));
        assert_eq!(alias("england"), Some("GB"));
        assert_eq!(alias("ivory coast"), Some("CI"));
        assert_eq!(alias("japan"), None);
    }

    #[test]
    fn every_code_has_a_name_in_every_shop_language() {
        assert_eq!(country_names::COUNTRIES.len(), ISO_3166_1.len());
        for (i, (code, _)) in ISO_3166_1.iter().enumerate() {
            assert_eq!(
                country_names::COUNTRIES[i].0,
                *code,
                "same order as ISO_3166_1"
            );
            for lang in Lang::ALL {
                let name = name_in(code, lang).unwrap_or_default();
                assert!(
                    !name.is_empty() && name.trim() == name,
                    "{code} in {lang:?}"
                );
            }
        }
        assert_eq!(name_in("de", Lang::Es), Some("Alemania"));
        assert_eq!(name_in("DE", Lang::De), Some("Deutschland"));
        assert_eq!(name_in("JP", Lang::Es), Some("Japón"));
        assert_eq!(name_in("GB", Lang::En), Some("United Kingdom"));
        // The short name, not CLDR's official title.
        assert_eq!(name_in("HK", Lang::Es), Some("Hong Kong"));
        assert_eq!(name_in("ZZ", Lang::De), None);
    }

    #[test]
    fn continents_and_subregions_are_named_in_every_shop_language() {
        assert_eq!(region_name_in("Europe", Lang::Es), Some("Europa"));
        assert_eq!(region_name_in(" caribbean ", Lang::De), Some("Karibik"));
        assert_eq!(
            region_name_in("latin-america", Lang::Es),
            Some("Latinoamérica")
        );
        assert_eq!(region_name_in("Asia", Lang::En), Some("Asia"));
        // No CLDR counterpart: upstream's name stays.
        assert_eq!(region_name_in("Middle East", Lang::Es), None);
    }

    #[test]
    fn codes_are_named_in_short_common_english() {
        assert_eq!(name("MO"), Some("Macao"));
        assert_eq!(name("ci"), Some("Côte d'Ivoire"));
        assert_eq!(name("AD"), Some("Andorra"));
        assert_eq!(name("ID"), Some("Indonesia"));
        assert_eq!(name("GB"), Some("United Kingdom"));
        assert_eq!(name("ZZ"), None);
        assert_eq!(name("GL-29"), None);
        assert_eq!(name(""), None);
    }
}
