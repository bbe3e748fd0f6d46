<?php
/**
 * The admin side: the settings page (Settings → Sift) with its connection test, and Sift's
 * verdict in the comment list.
 *
 * @package Sift
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * Settings page, connection test, comment column.
 */
final class Sift_Admin {
	const PAGE        = 'sift';
	const SAVE_ACTION = 'sift_save';
	const TEST_ACTION = 'sift_test';

	/**
	 * Hooks the admin screens in.
	 */
	public static function register() {
		add_action( 'admin_menu', array( __CLASS__, 'menu' ) );
		add_action( 'admin_post_' . self::SAVE_ACTION, array( __CLASS__, 'save' ) );
		add_action( 'admin_post_' . self::TEST_ACTION, array( __CLASS__, 'test' ) );
		add_filter( 'manage_edit-comments_columns', array( __CLASS__, 'columns' ) );
		add_action( 'manage_comments_custom_column', array( __CLASS__, 'column' ), 10, 2 );
		add_filter( 'plugin_action_links_' . plugin_basename( SIFT_PLUGIN_FILE ), array( __CLASS__, 'action_links' ) );
	}

	/**
	 * Settings → Sift.
	 */
	public static function menu() {
		add_options_page( __( 'Sift', 'sift' ), __( 'Sift', 'sift' ), 'manage_options', self::PAGE, array( __CLASS__, 'page' ) );
	}

	/**
	 * A "Settings" link beside Deactivate on the Plugins screen.
	 *
	 * @param array<int, string> $links The links.
	 * @return array<int, string>
	 */
	public static function action_links( $links ) {
		$url = admin_url( 'options-general.php?page=' . self::PAGE );
		array_unshift( $links, '<a href="' . esc_url( $url ) . '">' . esc_html__( 'Settings', 'sift' ) . '</a>' );
		return $links;
	}

	/**
	 * The settings page. Secrets are never printed back: the fields stay empty, with the stored
	 * secret's first characters and last four beside them; an empty field keeps the stored one.
	 */
	public static function page() {
		if ( ! current_user_can( 'manage_options' ) ) {
			wp_die( esc_html__( 'You do not have permission to change Sift’s settings.', 'sift' ), '', array( 'response' => 403 ) );
		}
		$settings = Sift_Settings::get();
		$results  = get_transient( self::test_transient() );
		if ( false !== $results ) {
			delete_transient( self::test_transient() );
		}
		// phpcs:ignore WordPress.Security.NonceVerification.Recommended -- a display flag set by our own redirect.
		$saved = isset( $_GET['sift-saved'] );
		?>
		<div class="wrap">
			<h1><?php esc_html_e( 'Sift', 'sift' ); ?></h1>
			<p><?php esc_html_e( 'Spam classification and a browser challenge from your own Sift gateway, on comments, login, registration and password resets.', 'sift' ); ?></p>
			<?php if ( $saved ) : ?>
				<div class="notice notice-success"><p><?php esc_html_e( 'Settings saved.', 'sift' ); ?></p></div>
			<?php endif; ?>
			<?php if ( is_array( $results ) ) : ?>
				<div class="notice <?php echo esc_attr( self::all_passed( $results ) ? 'notice-success' : 'notice-error' ); ?> sift-test-results">
					<ul>
						<?php foreach ( $results as $result ) : ?>
							<li><?php echo esc_html( ( $result['ok'] ? '✓ ' : '✗ ' ) . $result['text'] ); ?></li>
						<?php endforeach; ?>
					</ul>
				</div>
			<?php endif; ?>
			<form method="post" action="<?php echo esc_url( admin_url( 'admin-post.php' ) ); ?>">
				<input type="hidden" name="action" value="<?php echo esc_attr( self::SAVE_ACTION ); ?>">
				<?php wp_nonce_field( self::SAVE_ACTION ); ?>
				<table class="form-table" role="presentation">
					<tr>
						<th scope="row"><label for="sift-gateway-url"><?php esc_html_e( 'Gateway URL', 'sift' ); ?></label></th>
						<td><input type="url" class="regular-text code" id="sift-gateway-url" name="gateway_url" value="<?php echo esc_attr( $settings['gateway_url'] ); ?>" placeholder="https://sift.example.com">
						<p class="description"><?php esc_html_e( 'Your Sift gateway; visitors’ browsers load sift.js from it, so it must be reachable from the internet.', 'sift' ); ?></p></td>
					</tr>
					<tr>
						<th scope="row"><label for="sift-site-key"><?php esc_html_e( 'Site key', 'sift' ); ?></label></th>
						<td><input type="text" class="regular-text code" id="sift-site-key" name="site_key" value="<?php echo esc_attr( $settings['site_key'] ); ?>" placeholder="pk_…">
						<p class="description"><?php esc_html_e( 'The challenge configuration’s public site key.', 'sift' ); ?></p></td>
					</tr>
					<?php
					foreach ( array(
						'challenge_secret' => __( 'Challenge secret key', 'sift' ),
						'classify_secret'  => __( 'Classify secret key', 'sift' ),
					) as $name => $label ) :
						?>
					<tr>
						<th scope="row"><label for="sift-<?php echo esc_attr( $name ); ?>"><?php echo esc_html( $label ); ?></label></th>
						<td><input type="password" autocomplete="off" class="regular-text code" id="sift-<?php echo esc_attr( $name ); ?>" name="<?php echo esc_attr( $name ); ?>" value="">
						<p class="description">
						<?php
						if ( '' !== $settings[ $name ] ) {
							/* translators: %s: the stored secret, all but its first and last characters hidden. */
							echo esc_html( sprintf( __( 'Stored: %s. Leave empty to keep it.', 'sift' ), Sift_Settings::masked( $settings[ $name ] ) ) );
						} else {
							esc_html_e( 'Not set.', 'sift' );
						}
						?>
						</p></td>
					</tr>
					<?php endforeach; ?>
					<tr>
						<th scope="row"><?php esc_html_e( 'When Sift cannot be reached', 'sift' ); ?></th>
						<td><fieldset>
							<label><input type="radio" name="on_outage" value="hold" <?php checked( 'hold', $settings['on_outage'] ); ?>> <?php esc_html_e( 'Hold: keep comments for review; pause login, registration and password resets with a message', 'sift' ); ?></label><br>
							<label><input type="radio" name="on_outage" value="accept" <?php checked( 'accept', $settings['on_outage'] ); ?>> <?php esc_html_e( 'Accept: let every form through unchecked until Sift is back', 'sift' ); ?></label>
						</fieldset></td>
					</tr>
				</table>
				<?php submit_button( __( 'Save settings', 'sift' ) ); ?>
			</form>
			<form method="post" action="<?php echo esc_url( admin_url( 'admin-post.php' ) ); ?>">
				<input type="hidden" name="action" value="<?php echo esc_attr( self::TEST_ACTION ); ?>">
				<?php wp_nonce_field( self::TEST_ACTION ); ?>
				<?php submit_button( __( 'Test connection', 'sift' ), 'secondary', 'sift-test', false ); ?>
			</form>
		</div>
		<?php
	}

	/**
	 * Saves the settings form.
	 */
	public static function save() {
		if ( ! current_user_can( 'manage_options' ) ) {
			wp_die( esc_html__( 'You do not have permission to change Sift’s settings.', 'sift' ), '', array( 'response' => 403 ) );
		}
		check_admin_referer( self::SAVE_ACTION );
		$stored   = Sift_Settings::get();
		$field    = static function ( $name ) {
			return isset( $_POST[ $name ] ) && is_string( $_POST[ $name ] ) ? trim( sanitize_text_field( wp_unslash( $_POST[ $name ] ) ) ) : ''; // phpcs:ignore WordPress.Security.NonceVerification.Missing -- checked above.
		};
		$settings = array(
			'gateway_url'      => untrailingslashit( esc_url_raw( $field( 'gateway_url' ), array( 'http', 'https' ) ) ),
			'site_key'         => $field( 'site_key' ),
			'challenge_secret' => '' !== $field( 'challenge_secret' ) ? $field( 'challenge_secret' ) : $stored['challenge_secret'],
			'classify_secret'  => '' !== $field( 'classify_secret' ) ? $field( 'classify_secret' ) : $stored['classify_secret'],
			'on_outage'        => in_array( $field( 'on_outage' ), Sift_Settings::OUTAGE_POLICIES, true ) ? $field( 'on_outage' ) : 'hold',
		);
		update_option( Sift_Settings::OPTION, $settings );
		wp_safe_redirect( admin_url( 'options-general.php?page=' . self::PAGE . '&sift-saved=1' ) );
		exit;
	}

	/**
	 * The connection test: each setting checked against the gateway without counting usage or
	 * spending anything (the results shown once, on the settings page).
	 */
	public static function test() {
		if ( ! current_user_can( 'manage_options' ) ) {
			wp_die( esc_html__( 'You do not have permission to change Sift’s settings.', 'sift' ), '', array( 'response' => 403 ) );
		}
		check_admin_referer( self::TEST_ACTION );
		set_transient( self::test_transient(), self::run_test(), 5 * MINUTE_IN_SECONDS );
		wp_safe_redirect( admin_url( 'options-general.php?page=' . self::PAGE ) );
		exit;
	}

	/**
	 * One transient per user, so two administrators never see each other's results.
	 *
	 * @return string
	 */
	private static function test_transient() {
		return 'sift_test_' . get_current_user_id();
	}

	/**
	 * Whether every check passed.
	 *
	 * @param array<int, array{ok: bool, text: string}> $results The checks.
	 * @return bool
	 */
	private static function all_passed( $results ) {
		foreach ( $results as $result ) {
			if ( ! $result['ok'] ) {
				return false;
			}
		}
		return true;
	}

	/**
	 * The checks: sift.js served; the site key known (a challenge issued for it); the challenge
	 * secret known (verify answers about the solution, not the key); the classify secret valid
	 * (the gateway's Akismet verify-key, which counts nothing).
	 *
	 * @return array<int, array{ok: bool, text: string}>
	 */
	private static function run_test() {
		$settings = Sift_Settings::get();
		if ( '' === $settings['gateway_url'] ) {
			return array(
				array(
					'ok'   => false,
					'text' => __( 'No gateway URL is set.', 'sift' ),
				),
			);
		}
		$results = array();
		$script  = wp_remote_get( $settings['gateway_url'] . '/sift.js', array( 'timeout' => Sift_Client::TIMEOUT_S ) );
		$served  = ! is_wp_error( $script ) && 200 === wp_remote_retrieve_response_code( $script );
		/* translators: %s: the gateway URL. */
		$results[] = array(
			'ok'   => $served,
			'text' => $served ? sprintf( __( 'The gateway at %s serves sift.js.', 'sift' ), $settings['gateway_url'] ) : sprintf( __( 'The gateway at %s cannot be reached.', 'sift' ), $settings['gateway_url'] ),
		);
		if ( ! $served ) {
			return $results;
		}
		$issued    = wp_remote_post(
			$settings['gateway_url'] . '/challenge',
			array(
				'timeout' => Sift_Client::TIMEOUT_S,
				'headers' => array( 'Content-Type' => 'application/json' ),
				'body'    => wp_json_encode( array( 'siteKey' => $settings['site_key'] ) ),
			)
		);
		$known     = ! is_wp_error( $issued ) && 200 === wp_remote_retrieve_response_code( $issued );
		$results[] = array(
			'ok'   => $known,
			'text' => $known ? __( 'The site key is known.', 'sift' ) : __( 'The site key is not known to the gateway.', 'sift' ),
		);
		// A solution of the wrong shape: a known key gets an answer about the solution.
		$verify    = Sift_Client::post( '/verify', $settings['challenge_secret'], array( 'solution' => 'connection-test' ) );
		$message   = null !== $verify && isset( $verify['body']['message'] ) ? (string) $verify['body']['message'] : '';
		$key_ok    = null !== $verify && 200 === $verify['status'] && ! in_array( $message, array( 'Missing secret key', 'Invalid secret key', 'Internal server error' ), true );
		$results[] = array(
			'ok'   => $key_ok,
			/* translators: %s: Sift's answer. */
			'text' => $key_ok ? __( 'The challenge secret key is valid.', 'sift' ) : sprintf( __( 'The challenge secret key was refused (%s).', 'sift' ), '' !== $message ? $message : __( 'no answer', 'sift' ) ),
		);
		$check     = wp_remote_post(
			$settings['gateway_url'] . '/1.1/verify-key',
			array(
				'timeout' => Sift_Client::TIMEOUT_S,
				'body'    => array( 'key' => $settings['classify_secret'] ),
			)
		);
		$valid     = ! is_wp_error( $check ) && 'valid' === wp_remote_retrieve_body( $check );
		$why       = is_wp_error( $check ) ? '' : (string) wp_remote_retrieve_header( $check, 'x-akismet-debug-help' );
		$results[] = array(
			'ok'   => $valid,
			/* translators: %s: Sift's answer. */
			'text' => $valid ? __( 'The classify secret key is valid.', 'sift' ) : sprintf( __( 'The classify secret key was refused (%s).', 'sift' ), '' !== $why ? $why : __( 'no answer', 'sift' ) ),
		);
		return $results;
	}

	/**
	 * A "Sift" column in Comments.
	 *
	 * @param array<string, string> $columns The columns.
	 * @return array<string, string>
	 */
	public static function columns( $columns ) {
		$columns['sift'] = __( 'Sift', 'sift' );
		return $columns;
	}

	/**
	 * The column: score, then the reasons (strongest first, as Sift gave them), or why there is
	 * no verdict.
	 *
	 * @param string $column     The column.
	 * @param int    $comment_id The comment.
	 */
	public static function column( $column, $comment_id ) {
		if ( 'sift' !== $column ) {
			return;
		}
		$score = get_comment_meta( $comment_id, Sift_Comments::META_SCORE, true );
		if ( '' === $score ) {
			if ( 'unreachable' === get_comment_meta( $comment_id, Sift_Comments::META_HELD, true ) ) {
				echo '<span class="sift-held">' . esc_html__( 'Held: Sift could not be reached', 'sift' ) . '</span>';
			}
			return;
		}
		$reasons = json_decode( (string) get_comment_meta( $comment_id, Sift_Comments::META_REASONS, true ), true );
		/* translators: %s: the score, 0 to 1. */
		echo '<strong class="sift-score">' . esc_html( sprintf( __( 'Score %s', 'sift' ), number_format_i18n( (float) $score, 2 ) ) ) . '</strong>';
		if ( is_array( $reasons ) && array() !== $reasons ) {
			echo '<ul class="sift-reasons">';
			foreach ( $reasons as $reason ) {
				if ( ! is_array( $reason ) || ! isset( $reason['label'], $reason['weight'] ) ) {
					continue;
				}
				printf(
					'<li data-signal="%1$s">%2$s <span class="description">(%3$s)</span></li>',
					esc_attr( isset( $reason['signal'] ) ? (string) $reason['signal'] : '' ),
					esc_html( (string) $reason['label'] ),
					esc_html( sprintf( '%+.2f', (float) $reason['weight'] ) )
				);
			}
			echo '</ul>';
		}
	}
}
