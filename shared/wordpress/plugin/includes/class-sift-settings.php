<?php
/**
 * The plugin's settings: one option, `sift_settings`, a plain array kept as written (as WP-CLI's
 * `wp option update sift_settings --format=json` would set it).
 *
 * @package Sift
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * Reads and writes `sift_settings`.
 */
final class Sift_Settings {
	const OPTION = 'sift_settings';

	/** The two outage policies (DESIGN.md "WordPress plugin"). */
	const OUTAGE_POLICIES = array( 'accept', 'hold' );

	/**
	 * The settings, every key present: what is missing from the option takes its default.
	 * `hold` by default: a comment is kept for review rather than published unchecked.
	 *
	 * @return array{gateway_url: string, site_key: string, challenge_secret: string, classify_secret: string, on_outage: string}
	 */
	public static function get() {
		$stored   = get_option( self::OPTION, array() );
		$stored   = is_array( $stored ) ? $stored : array();
		$settings = array(
			'gateway_url'      => '',
			'site_key'         => '',
			'challenge_secret' => '',
			'classify_secret'  => '',
			'on_outage'        => 'hold',
		);
		foreach ( array_keys( $settings ) as $name ) {
			if ( isset( $stored[ $name ] ) && is_string( $stored[ $name ] ) ) {
				$settings[ $name ] = trim( $stored[ $name ] );
			}
		}
		$settings['gateway_url'] = untrailingslashit( $settings['gateway_url'] );
		if ( ! in_array( $settings['on_outage'], self::OUTAGE_POLICIES, true ) ) {
			$settings['on_outage'] = 'hold';
		}
		return $settings;
	}

	/**
	 * Whether the challenge can run: a gateway, a site key and a challenge secret.
	 *
	 * @return bool
	 */
	public static function challenge_ready() {
		$settings = self::get();
		return '' !== $settings['gateway_url'] && '' !== $settings['site_key'] && '' !== $settings['challenge_secret'];
	}

	/**
	 * Whether comments can be classified: a gateway and a classify secret.
	 *
	 * @return bool
	 */
	public static function classify_ready() {
		$settings = self::get();
		return '' !== $settings['gateway_url'] && '' !== $settings['classify_secret'];
	}

	/**
	 * A secret as the settings page may show it: its first characters and its last four, never
	 * the whole (a page can be cached, screenshotted or read over a shoulder).
	 *
	 * @param string $secret The secret.
	 * @return string
	 */
	public static function masked( $secret ) {
		if ( '' === $secret ) {
			return '';
		}
		if ( strlen( $secret ) <= 10 ) {
			return str_repeat( '•', 8 );
		}
		return substr( $secret, 0, 3 ) . str_repeat( '•', 8 ) . substr( $secret, -4 );
	}
}
