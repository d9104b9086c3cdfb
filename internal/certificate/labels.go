package certificate

// Lang selects the language of the certificate's fixed labels.
type Lang string

// Supported label languages. The empty Lang means LangKO, the service's home language.
const (
	LangKO Lang = "ko"
	LangEN Lang = "en"
)

// labels are the fixed texts of one language.
type labels struct {
	title, subtitle              string
	certifies                    string
	issuer, issuedOn, expiresOn  string
	noExpiry, serial, scanVerify string
	criteria                     string
	evidenceSigned               string                // "Evidence", saying the credential signs it
	evidenceRecords              string                // "Evidence", saying it is the issuer's records
	stamps                       map[StatusKind]string // the word across a badge that is no longer valid
	provenance                   map[Provenance]string // which facts the credential signs, at the foot
}

var labelSets = map[Lang]labels{
	LangKO: {
		title:           "디지털 배지 인증서",
		subtitle:        "CERTIFICATE OF ACHIEVEMENT",
		certifies:       "위 사람은 다음 디지털 배지를 취득하였음을 인증합니다.",
		issuer:          "발급 기관",
		issuedOn:        "발급일",
		expiresOn:       "만료일",
		noExpiry:        "만료 없음",
		serial:          "일련번호",
		scanVerify:      "QR 코드를 스캔하여 진위를 확인하세요",
		criteria:        "취득 기준",
		evidenceSigned:  "증빙 자료(자격 증명에 서명됨)",
		evidenceRecords: "증빙 자료(발급 기관의 기록)",
		stamps: map[StatusKind]string{StatusValid: "", StatusRevoked: "취소됨", StatusExpired: "만료됨",
			StatusReplaced: "대체됨", StatusUnverified: "검증 실패"},
		provenance: map[Provenance]string{
			ProvenanceSigned: "위 수령인 이름, 배지, 발급 기관, 날짜는 Open Badges 자격 증명에 서명되어 있습니다. " +
				"QR 코드를 스캔하면 서명과 배지의 현재 상태를 확인할 수 있습니다.",
			ProvenanceSignedNoName: "위 배지, 발급 기관, 날짜는 Open Badges 자격 증명에 서명되어 있습니다. 수령인 이름은 발급 기관의 " +
				"기록에 따른 것입니다(자격 증명은 수령인을 해시된 식별자로만 나타냅니다). QR 코드로 현재 상태를 확인하세요.",
			ProvenanceRecords: "위 정보는 발급 기관의 기록에 따른 것입니다. 자격 증명의 서명으로 확인되지 않았습니다.",
		},
	},
	LangEN: {
		title:           "Certificate of Achievement",
		subtitle:        "DIGITAL BADGE",
		certifies:       "This is to certify that the person named above has earned the badge",
		issuer:          "Issued by",
		issuedOn:        "Issued on",
		expiresOn:       "Expires on",
		noExpiry:        "Does not expire",
		serial:          "Serial number",
		scanVerify:      "Scan the QR code to verify",
		criteria:        "Criteria",
		evidenceSigned:  "Evidence (signed in the credential)",
		evidenceRecords: "Evidence (issuer's records)",
		stamps: map[StatusKind]string{StatusValid: "", StatusRevoked: "REVOKED", StatusExpired: "EXPIRED",
			StatusReplaced: "REPLACED", StatusUnverified: "NOT VERIFIED"},
		provenance: map[Provenance]string{
			ProvenanceSigned: "The recipient's name, the badge, the issuer and the dates above are signed in the Open Badges " +
				"credential. Scan the QR code to check the signature and the badge's current status.",
			ProvenanceSignedNoName: "The badge, the issuer and the dates above are signed in the Open Badges credential; the " +
				"recipient's name is from the issuer's records (the credential identifies the recipient only by a hashed " +
				"identifier). Scan the QR code to check the current status.",
			ProvenanceRecords: "The details above are from the issuer's records; the credential's signature did not confirm them.",
		},
	},
}
