//! Country names for codes upstream's `/countries` does not name.
//!
//! `GET /countries` lists only countries with local plans (spec 2.2), yet regional and global
//! plans cover many more, by code alone. This table names every ISO 3166-1 alpha-2 code in
//! short, common English ("Macao", "Côte d'Ivoire", "South Korea") so every covered country
//! can be shown, listed and searched by name. Upstream's own name wins where it has one.

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

/// Other names people type for a country, as [`crate::domain::plan::search_key`] folds them
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
];

/// The code another name of a country stands for (`query` folded as by
/// [`crate::domain::plan::search_key`]), if it is one of [`ALIASES`].
pub fn alias(query: &str) -> Option<&'static str> {
    ALIASES
        .iter()
        .find(|(name, _)| *name == query)
        .map(|(_, code)| *code)
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
        for (i, (alias, code)) in ALIASES.iter().enumerate() {
            assert_eq!(crate::domain::plan::search_key(alias), *alias, "{alias}");
            assert!(name(code).is_some(), "{alias} → {code}");
            assert!(
                ALIASES[..i].iter().all(|(a, _)| a != alias),
                "{alias} twice"
            );
        }
        assert_eq!(alias("usa"), Some("US"));
        assert_eq!(alias("england"), Some("GB"));
        assert_eq!(alias("ivory coast"), Some("CI"));
        assert_eq!(alias("japan"), None);
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
