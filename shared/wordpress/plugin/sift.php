<?php
/**
 * Plugin Name:       Sift
 * Plugin URI:        https://github.com/sift/sift
 * Description:       Spam classification and a proof-of-work challenge from your own Sift gateway, on comments, login, registration and password resets.
 * Version:           0.1.0
 * Requires at least: 6.1
 * Requires PHP:      8.0
 * Author:            Sift
 * License:           MIT
 * Text Domain:       sift
 *
 * @package Sift
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

define( 'SIFT_PLUGIN_FILE', __FILE__ );
define( 'SIFT_PLUGIN_VERSION', '0.1.0' );

require_once __DIR__ . '/includes/class-sift-settings.php';
require_once __DIR__ . '/includes/class-sift-client.php';
require_once __DIR__ . '/includes/class-sift-challenge.php';
require_once __DIR__ . '/includes/class-sift-comments.php';
require_once __DIR__ . '/includes/class-sift-admin.php';

Sift_Challenge::register();
Sift_Comments::register();
if ( is_admin() ) {
	Sift_Admin::register();
}
register_deactivation_hook(
	__FILE__,
	static function () {
		wp_clear_scheduled_hook( Sift_Comments::RECHECK_HOOK );
	}
);
