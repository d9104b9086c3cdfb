package db

// The states and statuses the schema's CHECK constraints allow, one type per column (or per family of columns
// that share a constraint), each with the list of its values in the constraint's order. sqlc generates these
// columns as string: compare them as string(db.AssertionFailed), or convert the column, db.AssertionState(r.State),
// to switch on it. TestStatesMatchConstraints reads every such constraint of the migrated schema and fails when a
// list here and its constraint differ. The API's stateCode and processingStatus values are these values.
//
// The mode columns (live, test) are apikey.ModeLive and apikey.ModeTest; the same test holds them to their
// constraints. The pipeline step column has no constraint: its values are activities.Step*.

// AssertionState is assertions.state.
type AssertionState string

const (
	AssertionProcessing AssertionState = "PROCESSING" // in the pipeline
	AssertionIssued     AssertionState = "ISSUED"     // v2's success, or v3's when the notification failed
	AssertionReceived   AssertionState = "RECEIVED"   // v3's success: issued and notified
	AssertionFailed     AssertionState = "FAILED"
	AssertionReissued   AssertionState = "REISSUED" // replaced by a reissue (replaced_by); its status bit is set
	AssertionRevoked    AssertionState = "REVOKED"
	AssertionExpired    AssertionState = "EXPIRED"
)

// AssertionStates lists every AssertionState.
var AssertionStates = []AssertionState{AssertionProcessing, AssertionIssued, AssertionReceived, AssertionFailed,
	AssertionReissued, AssertionRevoked, AssertionExpired}

// IssuanceStatus is issuances.processing_status.
type IssuanceStatus string

const (
	IssuanceProcessing IssuanceStatus = "PROCESSING"
	IssuanceCompleted  IssuanceStatus = "COMPLETED"
	IssuanceFailed     IssuanceStatus = "FAILED"
)

// IssuanceStatuses lists every IssuanceStatus.
var IssuanceStatuses = []IssuanceStatus{IssuanceProcessing, IssuanceCompleted, IssuanceFailed}

// NotificationStatus is the status of an outbox row: notifications.status and notification_resends.status.
type NotificationStatus string

const (
	NotificationPending NotificationStatus = "PENDING"
	NotificationSent    NotificationStatus = "SENT"
	NotificationFailed  NotificationStatus = "FAILED"
)

// NotificationStatuses lists every NotificationStatus.
var NotificationStatuses = []NotificationStatus{NotificationPending, NotificationSent, NotificationFailed}

// DeliveryStatus is webhook_deliveries.status.
type DeliveryStatus string

const (
	DeliveryPending   DeliveryStatus = "PENDING"
	DeliverySucceeded DeliveryStatus = "SUCCEEDED"
	DeliveryFailed    DeliveryStatus = "FAILED"
	DeliveryCancelled DeliveryStatus = "CANCELLED"
)

// DeliveryStatuses lists every DeliveryStatus.
var DeliveryStatuses = []DeliveryStatus{DeliveryPending, DeliverySucceeded, DeliveryFailed, DeliveryCancelled}

// ReminderState is expiry_reminders.state.
type ReminderState string

const (
	ReminderClaimed   ReminderState = "CLAIMED" // due, not yet sent
	ReminderSent      ReminderState = "SENT"
	ReminderFailed    ReminderState = "FAILED"
	ReminderCancelled ReminderState = "CANCELLED"
)

// ReminderStates lists every ReminderState.
var ReminderStates = []ReminderState{ReminderClaimed, ReminderSent, ReminderFailed, ReminderCancelled}

// PublishStatus is badges.publish_status and programs.publish_status.
type PublishStatus string

const (
	PublishDrafted   PublishStatus = "DRAFTED"
	PublishPublished PublishStatus = "PUBLISHED"
)

// PublishStatuses lists every PublishStatus.
var PublishStatuses = []PublishStatus{PublishDrafted, PublishPublished}
