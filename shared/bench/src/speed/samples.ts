// Real-looking form submissions for the bench: a booking question, a comment-form SEO spam, an
// SMS-style prize scam and a French contact form, as the model worker's bench always used.
import { SPAM_STANDARD, type NormalizedField } from "@sift/contracts";

export const SAMPLES: ReadonlyArray<readonly NormalizedField[]> = [
  [
    ["name", "Sam Taylor"],
    ["email", "sam@example.org"],
    ["message", "Hello, is the room still free for the weekend of 14 June? We are two adults and a dog."],
  ],
  [
    ["comment_author", "Best SEO"],
    ["comment_author_email", "seo.pro@mail.ru"],
    [
      "comment_content",
      "Great article! Buy cheap backlinks and rank #1 on Google in 7 days: http://cheap-seo.example.xyz/offer",
    ],
  ],
  [["message", "URGENT! You have won a £1000 cash prize. To claim call 09061701461 now."]],
  [
    ["your-name", "Marie"],
    ["your-email", "marie.dupont@gmail.com"],
    [
      "your-message",
      "Bonjour, je voudrais savoir si vous livrez à Lyon et quels sont les délais. Merci beaucoup !",
    ],
  ],
];

/** The classify bodies, one per sample, taken in turn. */
export const classifyBodies = (): (() => string) => {
  const bodies = SAMPLES.map((fields) =>
    JSON.stringify({ content: Object.fromEntries(fields), model: SPAM_STANDARD }),
  );
  let i = 0;
  return () => bodies[i++ % bodies.length]!;
};
