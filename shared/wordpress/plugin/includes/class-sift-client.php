<?php
/**
 * Calls to the Sift gateway: verify, classify (with its reasons) and feedback.
 *
 * @package Sift
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * One place for every HTTP call to Sift, and for what counts as Sift being unreachable: a network
 * error, a time-out, a 5xx, or verify's `Internal server error` (the spec tells callers to treat
 * that answer as an outage).
 */
final class Sift_Client {
	/** DESIGN.md: an outage is a time-out of at most 5 s, so a page never waits longer on Sift. */
	const TIMEOUT_S = 5;

	/** Spec 7.2: verify's answer when the check failed on the service side. */
	const INTERNAL_ERROR = 'Internal server error';

	/**
	 * POST /verify with the challenge secret.
	 *
	 * @param string $solution The form's `_vendor` field (may be empty: Sift then answers `Missing solution`).
	 * @return array{outcome: string, message: string} outcome `ok`, `refused` or `unreachable`.
	 */
	public static function verify( $solution ) {
		$settings = Sift_Settings::get();
		$answer   = self::post( '/verify', $settings['challenge_secret'], array( 'solution' => $solution ) );
		if ( null === $answer ) {
			return array(
				'outcome' => 'unreachable',
				'message' => '',
			);
		}
		$ok      = isset( $answer['body']['ok'] ) && true === $answer['body']['ok'];
		$message = isset( $answer['body']['message'] ) && is_string( $answer['body']['message'] ) ? $answer['body']['message'] : '';
		if ( 200 !== $answer['status'] || ( ! $ok && self::INTERNAL_ERROR === $message ) ) {
			return array(
				'outcome' => 'unreachable',
				'message' => $message,
			);
		}
		return array(
			'outcome' => $ok ? 'ok' : 'refused',
			'message' => $message,
		);
	}

	/**
	 * POST /classify?explain=1 with the classify secret.
	 *
	 * @param array<string, string> $content The submission's fields.
	 * @return array{label: string, score: float, reasons: array<int, array{signal: string, weight: float, label: string}>}|null null when Sift is unreachable or refused the call.
	 */
	public static function classify( $content ) {
		$settings = Sift_Settings::get();
		$answer   = self::post(
			'/classify?explain=1',
			$settings['classify_secret'],
			array(
				'content' => $content,
				'model'   => 'spam-standard',
			)
		);
		if ( null === $answer || 200 !== $answer['status'] || ! isset( $answer['body']['label'], $answer['body']['score'] ) ) {
			return null;
		}
		$reasons = array();
		if ( isset( $answer['body']['reasons'] ) && is_array( $answer['body']['reasons'] ) ) {
			foreach ( $answer['body']['reasons'] as $reason ) {
				if ( ! is_array( $reason ) || ! isset( $reason['signal'], $reason['weight'] ) ) {
					continue;
				}
				$reasons[] = array(
					'signal' => (string) $reason['signal'],
					'weight' => (float) $reason['weight'],
					'label'  => isset( $reason['label'] ) ? (string) $reason['label'] : (string) $reason['signal'],
				);
			}
		}
		return array(
			'label'   => (string) $answer['body']['label'],
			'score'   => (float) $answer['body']['score'],
			'reasons' => $reasons,
		);
	}

	/**
	 * POST /feedback: a site owner's "Spam" / "Not spam" as a report.
	 *
	 * @param array<string, string> $content The comment's fields, as they were classified.
	 * @param string                $label   `spam` or `clean`.
	 * @return bool Whether Sift took the report.
	 */
	public static function report( $content, $label ) {
		$settings = Sift_Settings::get();
		$answer   = self::post(
			'/feedback',
			$settings['classify_secret'],
			array(
				'content' => $content,
				'label'   => $label,
			)
		);
		return null !== $answer && 200 === $answer['status'];
	}

	/**
	 * A JSON POST to the gateway with a secret as the bearer token.
	 *
	 * @param string               $path   The path, with its query.
	 * @param string               $secret The secret key.
	 * @param array<string, mixed> $body   The JSON body.
	 * @return array{status: int, body: array<string, mixed>}|null null on a network error or time-out.
	 */
	public static function post( $path, $secret, $body ) {
		$settings = Sift_Settings::get();
		if ( '' === $settings['gateway_url'] ) {
			return null;
		}
		$response = wp_remote_post(
			$settings['gateway_url'] . $path,
			array(
				'timeout' => self::TIMEOUT_S,
				'headers' => array(
					'Authorization' => 'Bearer ' . $secret,
					'Content-Type'  => 'application/json',
					'Accept'        => 'application/json',
				),
				'body'    => wp_json_encode( $body ),
			)
		);
		if ( is_wp_error( $response ) ) {
			return null;
		}
		$decoded = json_decode( wp_remote_retrieve_body( $response ), true );
		return array(
			'status' => (int) wp_remote_retrieve_response_code( $response ),
			'body'   => is_array( $decoded ) ? $decoded : array(),
		);
	}
}
