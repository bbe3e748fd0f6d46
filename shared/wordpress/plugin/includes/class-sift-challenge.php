<?php
/**
 * The challenge on the comment, login, registration and lost-password forms: sift.js from the
 * gateway solves it in the browser and posts `_vendor`; each submission is verified here.
 *
 * @package Sift
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * Prints the marker sift.js's forms need, loads the scripts, and verifies on submit.
 */
final class Sift_Challenge {
	/** The field sift.js posts (spec 2.4: the solution is the form's `_vendor`). */
	const FIELD = '_vendor';

	/**
	 * The verify outcome of this request's comment, read by Sift_Comments: `ok`, or `unreachable`
	 * when Sift could not be asked (the outage policy then decides).
	 *
	 * @var string|null
	 */
	public static $comment_outcome = null;

	/**
	 * Hooks the forms in.
	 */
	public static function register() {
		add_action( 'wp_enqueue_scripts', array( __CLASS__, 'enqueue_front' ) );
		add_action( 'login_enqueue_scripts', array( __CLASS__, 'enqueue' ) );
		// Each of these actions runs inside its form, before `</form>`.
		add_action( 'comment_form', array( __CLASS__, 'print_marker' ) );
		add_action( 'login_form', array( __CLASS__, 'print_marker' ) );
		add_action( 'register_form', array( __CLASS__, 'print_marker' ) );
		add_action( 'lostpassword_form', array( __CLASS__, 'print_marker' ) );

		// Early, so a refused comment stores nothing.
		add_filter( 'preprocess_comment', array( __CLASS__, 'check_comment' ), 1 );
		// After WordPress's own password check, so its answer is replaced, never added to.
		add_filter( 'authenticate', array( __CLASS__, 'check_login' ), 99 );
		add_filter( 'registration_errors', array( __CLASS__, 'check_registration' ), 10, 1 );
		add_action( 'lostpassword_post', array( __CLASS__, 'check_lost_password' ), 10, 1 );
	}

	/**
	 * Whether this visitor skips the challenge: people who moderate comments (DESIGN.md).
	 *
	 * @return bool
	 */
	private static function exempt() {
		return is_user_logged_in() && current_user_can( 'moderate_comments' );
	}

	/**
	 * On a post or page whose comments are open.
	 */
	public static function enqueue_front() {
		if ( is_singular() && comments_open() && ! self::exempt() ) {
			self::enqueue();
		}
	}

	/**
	 * The plugin's marker script, then the gateway's sift.js, both at the end of the page: the
	 * marker script gives the marked forms sift.js's attributes before sift.js scans for them.
	 */
	public static function enqueue() {
		if ( ! Sift_Settings::challenge_ready() ) {
			return;
		}
		$settings = Sift_Settings::get();
		wp_enqueue_script(
			'sift-mark',
			plugins_url( 'assets/sift-mark.js', SIFT_PLUGIN_FILE ),
			array(),
			SIFT_PLUGIN_VERSION,
			true
		);
		wp_localize_script(
			'sift-mark',
			'siftMark',
			array(
				'unreachable' => __( 'The anti-spam check could not reach its service, so the form was not sent. Please try again in a moment.', 'sift' ),
			)
		);
		// No version query: the gateway serves the current sift.js with its own cache headers.
		wp_enqueue_script( 'sift', $settings['gateway_url'] . '/sift.js', array( 'sift-mark' ), null, true ); // phpcs:ignore WordPress.WP.EnqueuedResourceParameters.MissingVersion
	}

	/**
	 * The marker inside a form: sift-mark.js copies its attributes onto the form, since WordPress's
	 * comment and login forms offer no hook for attributes on `<form>` itself.
	 */
	public static function print_marker() {
		if ( ! Sift_Settings::challenge_ready() || self::exempt() ) {
			return;
		}
		$settings = Sift_Settings::get();
		printf(
			'<span class="sift-challenge" hidden data-sift-site-key="%1$s" data-sift-url="%2$s"></span><noscript><p>%3$s</p></noscript>',
			esc_attr( $settings['site_key'] ),
			esc_url( $settings['gateway_url'] ),
			esc_html__( 'This form needs JavaScript: it runs a short anti-spam check in your browser.', 'sift' )
		);
	}

	/**
	 * The solution the form posted, or an empty string.
	 *
	 * @return string
	 */
	private static function posted_solution() {
		// phpcs:ignore WordPress.Security.NonceVerification.Missing -- the solution is the form's proof; WordPress's own form handlers check their nonces.
		return isset( $_POST[ self::FIELD ] ) && is_string( $_POST[ self::FIELD ] ) ? sanitize_text_field( wp_unslash( $_POST[ self::FIELD ] ) ) : '';
	}

	/**
	 * A sentence for a refused solution that a person understands.
	 *
	 * @param string $message Sift's verify message (spec 7.2).
	 * @return string
	 */
	public static function refusal( $message ) {
		if ( 'Missing solution' === $message ) {
			return __( 'This form was not sent: the anti-spam check did not run in your browser. Please make sure JavaScript is on, reload the page and try again.', 'sift' );
		}
		if ( 'Expired challenge' === $message || 'Spent challenge' === $message ) {
			return __( 'This form was not sent: its anti-spam check had expired or was already used. Please reload the page and send it again.', 'sift' );
		}
		return __( 'This form was not sent: its anti-spam check did not pass. Please reload the page and try again.', 'sift' );
	}

	/**
	 * A sentence for a form refused because Sift cannot be reached and the policy is `hold`.
	 *
	 * @return string
	 */
	public static function outage_refusal() {
		return __( 'The anti-spam service this site uses cannot be reached right now, so this form is paused. Please try again in a few minutes.', 'sift' );
	}

	/**
	 * Verifies the posted solution: `ok`, `refused` (with the sentence to show) or `unreachable`.
	 *
	 * @return array{outcome: string, message: string}
	 */
	private static function verify_posted() {
		$answer = Sift_Client::verify( self::posted_solution() );
		if ( 'unreachable' === $answer['outcome'] ) {
			$accept = 'accept' === Sift_Settings::get()['on_outage'];
			return array(
				'outcome' => $accept ? 'ok' : 'unreachable',
				'message' => $accept ? '' : self::outage_refusal(),
			);
		}
		if ( 'refused' === $answer['outcome'] ) {
			return array(
				'outcome' => 'refused',
				'message' => self::refusal( $answer['message'] ),
			);
		}
		return $answer;
	}

	/**
	 * `preprocess_comment`: a refused comment is answered with a sentence and stored nowhere; one
	 * that could not be verified because Sift is down goes on, to be held (Sift_Comments).
	 *
	 * @param array<string, mixed> $commentdata The comment.
	 * @return array<string, mixed>
	 */
	public static function check_comment( $commentdata ) {
		self::$comment_outcome = null;
		$type = isset( $commentdata['comment_type'] ) ? $commentdata['comment_type'] : 'comment';
		if ( in_array( $type, array( 'pingback', 'trackback' ), true ) || self::exempt() || ! Sift_Settings::challenge_ready() ) {
			return $commentdata;
		}
		$answer = Sift_Client::verify( self::posted_solution() );
		if ( 'refused' === $answer['outcome'] ) {
			wp_die(
				esc_html( self::refusal( $answer['message'] ) ),
				esc_html__( 'Comment not sent', 'sift' ),
				array(
					'response'  => 403,
					'back_link' => true,
				)
			);
		}
		// `unreachable`: never lost; with `hold` Sift_Comments keeps it pending.
		self::$comment_outcome = $answer['outcome'];
		return $commentdata;
	}

	/**
	 * Whether this request is a form posted to wp-login.php (not XML-RPC, REST or a cookie check).
	 *
	 * @return bool
	 */
	private static function login_form_post() {
		return did_action( 'login_init' ) > 0 && isset( $_SERVER['REQUEST_METHOD'] ) && 'POST' === $_SERVER['REQUEST_METHOD'];
	}

	/**
	 * `authenticate`: the login form's solution, whatever the password check said.
	 *
	 * @param WP_User|WP_Error|null $user The user so far.
	 * @return WP_User|WP_Error|null
	 */
	public static function check_login( $user ) {
		if ( ! self::login_form_post() || ! Sift_Settings::challenge_ready() ) {
			return $user;
		}
		$answer = self::verify_posted();
		if ( 'ok' !== $answer['outcome'] ) {
			return new WP_Error( 'sift_refused', esc_html( $answer['message'] ) );
		}
		return $user;
	}

	/**
	 * `registration_errors`: the registration form's solution.
	 *
	 * @param WP_Error $errors The errors so far.
	 * @return WP_Error
	 */
	public static function check_registration( $errors ) {
		if ( ! Sift_Settings::challenge_ready() ) {
			return $errors;
		}
		$answer = self::verify_posted();
		if ( 'ok' !== $answer['outcome'] ) {
			$errors->add( 'sift_refused', esc_html( $answer['message'] ) );
		}
		return $errors;
	}

	/**
	 * `lostpassword_post`: the reset form's solution; an error stops the e-mail.
	 *
	 * @param WP_Error $errors The errors so far.
	 */
	public static function check_lost_password( $errors ) {
		if ( ! self::login_form_post() || ! Sift_Settings::challenge_ready() ) {
			return;
		}
		$answer = self::verify_posted();
		if ( 'ok' !== $answer['outcome'] ) {
			$errors->add( 'sift_refused', esc_html( $answer['message'] ) );
		}
	}
}
