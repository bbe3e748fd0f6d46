<?php
/**
 * Comment text classified by Sift: spam at 0.8 to the spam folder, its reasons kept as comment
 * meta and shown in the admin, the owner's "Spam" / "Not spam" sent back as reports.
 *
 * @package Sift
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * Classifies, stores the verdict, reports the owner's corrections.
 */
final class Sift_Comments {
	const META_SCORE   = 'sift_score';
	const META_REASONS = 'sift_reasons';
	/** Why a comment was held without a verdict (`unreachable`): Sift could not be asked. */
	const META_HELD = 'sift_held';

	/** The WP-Cron event that asks Sift about comments held while it was unreachable. */
	const RECHECK_HOOK = 'sift_recheck';

	/** A held comment is asked about again this long after an outage (then again, until Sift answers). */
	const RECHECK_AFTER_S = 300;

	/** Comments asked about per run: a long outage's queue is worked through in steps. */
	const RECHECK_BATCH = 50;

	/**
	 * This request's verdict, written as meta once the comment has an id.
	 *
	 * @var array{label: string, score: float, reasons: array<int, array{signal: string, weight: float, label: string}>}|null
	 */
	private static $verdict = null;

	/**
	 * Whether this request's comment was held because Sift was unreachable.
	 *
	 * @var bool
	 */
	private static $held = false;

	/**
	 * Hooks classification and reports in.
	 */
	public static function register() {
		// Late, so WordPress's own moderation rules (blocked words, links) have had their say.
		add_filter( 'pre_comment_approved', array( __CLASS__, 'judge' ), 99, 2 );
		add_action( 'comment_post', array( __CLASS__, 'remember' ), 10, 1 );
		add_action( 'transition_comment_status', array( __CLASS__, 'report' ), 10, 3 );
		add_action( self::RECHECK_HOOK, array( __CLASS__, 'recheck' ) );
	}

	/**
	 * The fields Sift reads, under WordPress's own names (spec 2.1 rule 6 allows any names).
	 *
	 * @param array<string, mixed>|WP_Comment $comment The comment.
	 * @return array<string, string>
	 */
	public static function content_of( $comment ) {
		$fields  = is_array( $comment ) ? $comment : get_object_vars( $comment );
		$content = array();
		foreach ( array( 'comment_author', 'comment_author_email', 'comment_author_url', 'comment_content' ) as $name ) {
			if ( isset( $fields[ $name ] ) && '' !== (string) $fields[ $name ] ) {
				$content[ $name ] = (string) $fields[ $name ];
			}
		}
		return $content;
	}

	/**
	 * `pre_comment_approved`: `spam` at a spam verdict; pending (0) when Sift could not be asked
	 * and the outage policy is `hold`; otherwise WordPress's own decision stands.
	 *
	 * @param int|string|WP_Error  $approved    WordPress's decision so far.
	 * @param array<string, mixed> $commentdata The comment.
	 * @return int|string|WP_Error
	 */
	public static function judge( $approved, $commentdata ) {
		self::$verdict = null;
		self::$held    = false;
		if ( is_wp_error( $approved ) || 'spam' === $approved || 'trash' === $approved ) {
			return $approved;
		}
		if ( is_user_logged_in() && current_user_can( 'moderate_comments' ) ) {
			return $approved;
		}
		$hold = 'hold' === Sift_Settings::get()['on_outage'];
		if ( 'unreachable' === Sift_Challenge::$comment_outcome && $hold ) {
			self::$held = true;
			return 0;
		}
		if ( ! Sift_Settings::classify_ready() ) {
			return $approved;
		}
		$verdict = Sift_Client::classify( self::content_of( $commentdata ) );
		if ( null === $verdict ) {
			// The spec advises treating an outage as clean; `hold` keeps it for review instead.
			self::$held = $hold;
			return $hold ? 0 : $approved;
		}
		self::$verdict = $verdict;
		return 'spam' === $verdict['label'] ? 'spam' : $approved;
	}

	/**
	 * `comment_post`: the verdict (or why there is none) as comment meta.
	 *
	 * @param int $comment_id The new comment's id.
	 */
	public static function remember( $comment_id ) {
		if ( null !== self::$verdict ) {
			self::store_verdict( $comment_id, self::$verdict );
		}
		if ( self::$held ) {
			update_comment_meta( $comment_id, self::META_HELD, 'unreachable' );
			self::schedule_recheck();
		}
		self::$verdict = null;
		self::$held    = false;
	}

	/**
	 * A verdict as comment meta: `sift_score` a number, `sift_reasons` JSON.
	 *
	 * @param int                                                                                           $comment_id The comment.
	 * @param array{label: string, score: float, reasons: array<int, array{signal: string, weight: float, label: string}>} $verdict    Sift's answer.
	 */
	private static function store_verdict( $comment_id, $verdict ) {
		update_comment_meta( $comment_id, self::META_SCORE, $verdict['score'] );
		// Meta values are unslashed on the way in: slash the JSON so its escapes survive.
		update_comment_meta( $comment_id, self::META_REASONS, wp_slash( wp_json_encode( $verdict['reasons'], JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES ) ) );
	}

	/**
	 * One recheck pending at a time.
	 */
	public static function schedule_recheck() {
		if ( false === wp_next_scheduled( self::RECHECK_HOOK ) ) {
			wp_schedule_single_event( time() + self::RECHECK_AFTER_S, self::RECHECK_HOOK );
		}
	}

	/**
	 * The recheck: each comment held while Sift was unreachable is classified now. Spam goes to
	 * the spam folder; anything else stays pending for the owner, since it never passed the
	 * challenge (it came while sift.js could not load). While Sift still cannot answer, the rest
	 * waits for the next run.
	 */
	public static function recheck() {
		if ( ! Sift_Settings::classify_ready() ) {
			return;
		}
		$held = get_comments(
			array(
				'status'     => 'hold',
				'meta_key'   => self::META_HELD, // phpcs:ignore WordPress.DB.SlowDBQuery.slow_db_query_meta_key -- a short queue, read by cron.
				'meta_value' => 'unreachable', // phpcs:ignore WordPress.DB.SlowDBQuery.slow_db_query_meta_value
				'number'     => self::RECHECK_BATCH,
			)
		);
		foreach ( $held as $comment ) {
			$verdict = Sift_Client::classify( self::content_of( $comment ) );
			if ( null === $verdict ) {
				self::schedule_recheck();
				return;
			}
			self::store_verdict( (int) $comment->comment_ID, $verdict );
			delete_comment_meta( $comment->comment_ID, self::META_HELD );
			if ( 'spam' === $verdict['label'] ) {
				wp_spam_comment( $comment );
			}
		}
		if ( count( $held ) === self::RECHECK_BATCH ) {
			self::schedule_recheck();
		}
	}

	/**
	 * `transition_comment_status`: "Spam" on a comment not in the spam folder reports spam;
	 * "Not spam" on one in it reports clean. Only a person's action, never Sift's own filing.
	 *
	 * @param string     $new_status The new status.
	 * @param string     $old_status The old status.
	 * @param WP_Comment $comment    The comment.
	 */
	public static function report( $new_status, $old_status, $comment ) {
		// A person's decision only: a status another plugin or a cron job changes teaches nothing.
		if ( ! Sift_Settings::classify_ready() || $new_status === $old_status || ! current_user_can( 'moderate_comments' ) ) {
			return;
		}
		$label = null;
		if ( 'spam' === $new_status ) {
			$label = 'spam';
		} elseif ( 'spam' === $old_status && in_array( $new_status, array( 'approved', 'unapproved' ), true ) ) {
			$label = 'clean';
		}
		if ( null === $label ) {
			return;
		}
		$content = self::content_of( $comment );
		if ( array() !== $content ) {
			Sift_Client::report( $content, $label );
		}
	}
}
